import AsyncOperations
import Cancellation
import Foundation
import ManualState
import TestSupport
import Testing

/// The post's own example, `FileUploadOperation` on its barrier-queue base, run as its call
/// site would run it: added to a queue. (Its `start()` prints "Starting", as the post's does.)
@Suite("Chapter 3 — the post's FileUploadOperation, as written")
struct Chapter3ArticleTests {
    @Test("it never calls resume() on its upload task, so it never finishes (bounded)")
    func articleUploadNeverFinishes() async {
        let created = Flag()
        let outcome = Locked<UploadOutcome?>(nil)
        let upload = ConcurrentSolutionsPost.FileUploadOperation(
            chunkCount: 1, pace: .milliseconds(1), createdItsTask: created.raise,
            handleResponse: { reported in outcome.withLock { $0 = reported } })
        let queue = OperationQueue()
        queue.addOperation(upload)
        #expect(await created.wait())
        // One 1 ms chunk, had it been resumed; half a second later it still runs.
        #expect(await !queueLearnsFinished(upload, within: 0.5), "the upload was never resumed")
        #expect(upload.isExecuting && !upload.isFinished)

        // Cancelling ends the never-started task, whose completion then finishes the operation.
        upload.cancel()
        #expect(await queueLearnsFinished(upload))
        #expect(outcome.withLock { $0 } == .cancelled(afterChunks: 0), "not one chunk was ever sent")
        #expect(await drained(queue))
    }

    @Test("with the missing resume() added, the same operation uploads and finishes")
    func withResumeItFinishes() async {
        let outcome = Locked<UploadOutcome?>(nil)
        let upload = ConcurrentSolutionsPost.FileUploadOperation(
            chunkCount: 3, pace: .milliseconds(1), resumesItsTask: true,
            handleResponse: { reported in outcome.withLock { $0 = reported } })
        #expect(await OperationQueue().runs(upload))
        #expect(upload.isFinished && !upload.isCancelled)
        #expect(outcome.withLock { $0 } == .uploaded(chunks: 3))
    }
}
