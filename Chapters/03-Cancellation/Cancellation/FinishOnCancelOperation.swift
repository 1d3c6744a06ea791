import ManualState

/// Marks itself finished from `cancel()`, whether or not it has started: a popular way to get
/// cancellation wrong, on chapter 2's operation (which has no cancellation handling of its
/// own). `AsyncOperation`, the finished base, avoids it, as it avoids `EarlyReturnOperation`'s.
///
/// Finishing an operation that is still waiting in its queue breaks the queue's
/// bookkeeping: Foundation prints "went isFinished=YES without being started by the queue
/// it is in" and lets the operation go, but on Linux it stays in the queue's list of
/// operations to start. Once nothing else holds it, the next time the queue looks for work
/// (resumed, or another operation ends) it follows a pointer into freed memory: a segfault in
/// `OperationQueue._schedule()`.
public final class FinishOnCancelOperation: ManualStateOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a `let` to a thread-safe superclass.
    private let report: @Sendable (String) -> Void

    public init(report: @escaping @Sendable (String) -> Void) {
        self.report = report
    }

    public override func main() {
        report("Executing")
        finish()
    }

    public override func cancel() {
        super.cancel()
        finish()  // the bug: this operation may not have been started yet
    }
}
