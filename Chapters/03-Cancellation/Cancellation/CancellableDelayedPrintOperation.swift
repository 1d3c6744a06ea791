import AsyncOperations
import Dispatch

/// Chapter 2's delayed print on the finished base: it prints "Starting" in `start()` and
/// "Executing" when its work runs — which a cancelled operation never does.
///
/// Open, so that a subclass can watch it (the chapter's pictures do).
open class CancellableDelayedPrintOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only `let` properties to a thread-safe superclass.
    private let delay: DispatchTimeInterval
    private let report: @Sendable (String) -> Void

    public init(after delay: DispatchTimeInterval, report: @escaping @Sendable (String) -> Void) {
        self.delay = delay
        self.report = report
    }

    open override func start() {
        report("Starting")
        super.start()  // finishes at once, without main(), if the operation is cancelled
    }

    public override func main() {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
            self.report("Executing")
            self.finish()
        }
    }
}
