import Dispatch
import ManualState

// Two popular ways to get cancellation wrong, on chapter 2's operation (which has no
// cancellation handling of its own). AsyncOperation, the finished base, avoids both.

/// Marks itself finished from `cancel()`, whether or not it has started.
///
/// Finishing an operation that is still waiting in its queue breaks the queue's
/// bookkeeping: Foundation prints "went isFinished=YES without being started by the queue
/// it is in", and on Linux the queue can afterwards spin forever in its scheduler.
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

/// Returns early from `main()` when it is cancelled — without calling `finish()`.
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
