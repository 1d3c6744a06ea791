import AsyncOperations
import Dispatch
import ManualState

extension ConcurrentSolutionsPost {
    /// The post's `FileUploadOperation`, on the post's own base (chapter 2's
    /// `ConcurrentSolutionsPost.AsyncOperation`: flags behind a concurrent queue, a `start()`
    /// that prints "Starting" and finishes a cancelled operation), with `LocalUploadTask` in
    /// place of `URLSession.shared.uploadTask(with:fromFile:)`.
    ///
    /// What to see (`Chapter3ArticleTests`): `main()` creates the upload task and never calls
    /// `resume()` on it, so the upload never starts, its completion never runs, and the
    /// operation never finishes — until someone cancels it, which ends the task and so calls
    /// its completion. And its `cancel()` stops the task before it calls `super.cancel()`:
    /// if the stopped task's completion finishes the operation in between, Foundation's
    /// `cancel()` finds it finished and does nothing, so `isCancelled` stays false for good.
    /// The fix is the other order, `super.cancel()` first, as `AsyncOperation.cancel()` does
    /// before it runs the `onCancel` handler that stops `UploadOperation`'s task.
    ///
    /// Changes from the post:
    /// - `public`: the tests live in another module. The package's layout, not Swift 6.
    /// - `uploadTask` is kept under a lock: `main()` writes it on the queue's thread and
    ///   `cancel()` reads it on any thread, and the class restates `@unchecked Sendable`
    ///   (Swift 6 warns without it on a subclass of `Operation`), which promises that such
    ///   accesses are safe.
    /// - No network: `LocalUploadTask` needs no file and no target URL, so the post's `fileURL`
    ///   and `targetUploadURL` give way to its chunk count and pace.
    /// - Knobs for the tests: `resumesItsTask` (false is the post's code), `createdItsTask`,
    ///   `stoppedItsTask` (runs between the two lines of `cancel()`, where a test holds it);
    ///   and the post's "Handle the response" is `handleResponse`.
    public final class FileUploadOperation: AsyncOperation, @unchecked Sendable {
        // @unchecked Sendable: `uploadTask` is a Locked; the rest are constants.
        private let chunkCount: Int
        private let pace: DispatchTimeInterval
        private let resumesItsTask: Bool
        private let createdItsTask: @Sendable () -> Void
        private let stoppedItsTask: @Sendable () -> Void
        private let handleResponse: @Sendable (UploadOutcome) -> Void
        private let uploadTask = Locked<LocalUploadTask?>(nil)

        /// - Parameters:
        ///   - resumesItsTask: false is the post's code; true adds the missing `resume()`.
        ///   - createdItsTask: called at the end of `main()`, once the task exists.
        ///   - stoppedItsTask: called in `cancel()` after it stopped the task, before `super.cancel()`.
        ///   - handleResponse: what the task's completion does before it calls `finish()`.
        public init(
            chunkCount: Int, pace: DispatchTimeInterval, resumesItsTask: Bool = false,
            createdItsTask: @escaping @Sendable () -> Void = {},
            stoppedItsTask: @escaping @Sendable () -> Void = {},
            handleResponse: @escaping @Sendable (UploadOutcome) -> Void = { _ in }
        ) {
            self.chunkCount = chunkCount
            self.pace = pace
            self.resumesItsTask = resumesItsTask
            self.createdItsTask = createdItsTask
            self.stoppedItsTask = stoppedItsTask
            self.handleResponse = handleResponse
        }

        public override func main() {
            let task = LocalUploadTask(chunkCount: chunkCount, pace: pace) { outcome in
                self.handleResponse(outcome)
                self.finish()
            }
            uploadTask.withLock { $0 = task }
            // The post stops here: no uploadTask?.resume().
            if resumesItsTask { task.resume() }
            createdItsTask()
        }

        public override func cancel() {
            uploadTask.withLock { $0 }?.cancel()  // first the task: its completion may finish us now...
            stoppedItsTask()
            super.cancel()  // ...then the flag, which Foundation does not set on a finished operation
        }
    }
}
