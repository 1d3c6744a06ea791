import Foundation
import Recording

/// Chapter 1's delayed print, now on `ManualStateOperation`: the queue waits for it.
public final class DelayedPrintOperation: ManualStateOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only `let` properties to a thread-safe superclass.
    private let delay: DispatchTimeInterval
    private let workQueue: DispatchQueue
    private let report: @Sendable (String) -> Void

    public init(
        after delay: DispatchTimeInterval,
        on workQueue: DispatchQueue = .global(),
        report: @escaping @Sendable (String) -> Void
    ) {
        self.delay = delay
        self.workQueue = workQueue
        self.report = report
    }

    public override func start() {
        tell("Starting")
        super.start()  // ManualStateOperation.start(), not Operation.start()
    }

    public override func main() {
        workQueue.asyncAfter(deadline: .now() + delay) {
            self.tell("Executing")
            self.finish()
        }
    }

    /// Reports `line` (in this operation's lane of the chapter's pictures, when recorded).
    private func tell(_ line: String) {
        Recorder.inLane(of: self) { report(line) }
    }
}
