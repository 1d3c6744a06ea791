import ManualState

/// Returns early from `main()` when it is cancelled — without calling `finish()`: a popular way
/// to get cancellation wrong, on chapter 2's operation (which has no cancellation handling of
/// its own). `AsyncOperation`, the finished base, avoids it.
///
/// The operation stays executing forever: the queue keeps it, its dependents never
/// become ready, and waiting for it never ends.
public final class EarlyReturnOperation: ManualStateOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a `let` to a thread-safe superclass.
    private let report: @Sendable (String) -> Void

    public init(report: @escaping @Sendable (String) -> Void) {
        self.report = report
    }

    public override func main() {
        guard !isCancelled else {
            report("main() returned early, without finish()")
            return  // the bug: nobody will ever call finish()
        }
        report("Executing")
        finish()
    }
}
