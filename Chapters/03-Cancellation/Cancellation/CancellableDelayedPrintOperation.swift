import AsyncOperations
import Dispatch
import Recording

/// Chapter 2's delayed print on the finished base: it prints "Starting" in `start()` and
/// "Executing" when its work runs — which a cancelled operation never does.
public final class CancellableDelayedPrintOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only `let` properties to a thread-safe superclass.
    private let delay: DispatchTimeInterval
    private let report: @Sendable (String) -> Void

    public init(after delay: DispatchTimeInterval, report: @escaping @Sendable (String) -> Void) {
        self.delay = delay
        self.report = report
    }

    public override func start() {
        tell("Starting")
        super.start()  // finishes at once, without main(), if the operation is cancelled
    }

    public override func main() {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
            self.tell("Executing")
            self.finish()
        }
    }

    /// Reports `line` (in this operation's lane of the chapter's pictures, when recorded).
    private func tell(_ line: String) {
        Recorder.inLane(of: self) { report(line) }
    }
}
