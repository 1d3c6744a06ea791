// Exercise 9 — an asynchronous operation whose progress a parent `Progress` sees (about 15 minutes).
// Chapter 9: Chapters/09-ProgressSuspendPriority/README.md. Check it: Scripts/workshop check 9
import AsyncOperations
import Dispatch
import Foundation

/// Runs `work` once per step, on a thread of its own, and reports how far it got through its
/// own `progress` — the only progress an asynchronous operation has, since
/// `OperationQueue.progress` never counts it.
///
/// On Linux, `Progress` takes no lock of its own (chapter 9): counting a step changes the
/// parent's progress too, and a parent's `cancel()`, `pause()` or `resume()` walks its
/// children while a child that has just finished removes itself from them. So one lock,
/// `progressLock`, guards the whole tree: this operation counts each step under it, and
/// whoever adds its progress to a parent changes that parent under it too.
public final class ReportingOperation: AsyncOperation, ProgressReporting, @unchecked Sendable {
    // @unchecked Sendable: constants only; the base guards its state. `progress` and its
    // parent are changed on several threads, each time under `progressLock`.
    public let progress: Progress
    /// The lock of the progress tree that `progress` joins (an `NSLock`, usually): shared by
    /// every operation of the tree, and taken by whoever cancels, pauses or resumes the parent.
    public let progressLock: any NSLocking & Sendable
    private let work: @Sendable (Int) -> Void

    /// - Parameters:
    ///   - steps: how many times `work` runs, with the step number 1, 2, …
    ///   - progressLock: the lock of the progress tree that `progress` will join.
    ///   - work: one step of the work.
    public init(
        steps: Int, progressLock: any NSLocking & Sendable, work: @escaping @Sendable (Int) -> Void
    ) {
        self.progress = Progress(totalUnitCount: Int64(steps))
        self.progressLock = progressLock
        self.work = work
        super.init()
        // TODO: cancelling the progress (or a parent of it) should cancel the operation: give
        // `progress` a cancellation handler that does. (Capture self weakly: the operation
        // holds its progress.)
    }

    public override func main() {
        DispatchQueue.global().async {
            for step in 1...self.progress.totalUnitCount {
                if self.isCancelled { break }  // a safe point: between two steps
                self.work(Int(step))
                // TODO: nothing tells `progress` that this step is done, so no parent ever
                // sees it advance. Count it — under `progressLock`, since that changes the parent too.
            }
            self.finish()
        }
    }
}
