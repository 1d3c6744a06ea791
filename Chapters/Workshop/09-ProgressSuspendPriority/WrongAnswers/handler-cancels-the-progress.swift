// Wrong answer: the handler cancels the progress, so that it is cancelled
// Caught by: parentCancelCancels, parentCancelledBeforeStart
// Exercise 9 — an asynchronous operation whose progress a parent Progress sees.
// Chapter 9: Chapters/09-ProgressSuspendPriority/README.md. Check it: Scripts/workshop check 9
import AsyncOperations
import Dispatch
import Foundation

/// Runs `work` once per step, on a thread of its own, and reports how far it got through its
/// own `progress` — the only progress an asynchronous operation has, since
/// `OperationQueue.progress` never counts it.
public final class ReportingOperation: AsyncOperation, ProgressReporting, @unchecked Sendable {
    // @unchecked Sendable: constants only, and Progress is thread-safe; the base guards its state.
    public let progress: Progress
    private let work: @Sendable (Int) -> Void

    /// - Parameters:
    ///   - steps: how many times `work` runs, with the step number 1, 2, …
    ///   - work: one step of the work.
    public init(steps: Int, work: @escaping @Sendable (Int) -> Void) {
        self.progress = Progress(totalUnitCount: Int64(steps))
        self.work = work
        super.init()
        progress.cancellationHandler = { [weak self] in self?.progress.cancel() }
    }

    public override func main() {
        DispatchQueue.global().async {
            for step in 1...self.progress.totalUnitCount {
                if self.isCancelled { break }  // a safe point: between two steps
                self.work(Int(step))
                self.progress.completedUnitCount = step
            }
            self.finish()
        }
    }
}
