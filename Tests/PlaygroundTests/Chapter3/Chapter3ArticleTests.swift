import Cancellation
import Foundation
import TestSupport
import Testing

/// The article's own example, `FileUploadOperation` on its barrier-queue base, run as its
/// call site runs it: added to a queue.
@Suite("Chapter 3 — the article's FileUploadOperation, as written")
struct Chapter3ArticleTests {
    @Test("it never calls resume() on its upload task, so it never finishes (bounded)")
    func articleUploadNeverFinishes() async {
        let created = Flag()
        let upload = ArticleFileUploadOperation(chunkCount: 3, pace: .milliseconds(1), createdItsTask: created.raise)
        let queue = OperationQueue()
        queue.addOperation(upload)
        #expect(await created.wait())
        // Three chunks take 3 ms once resumed; a tenth of a second later it still runs.
        #expect(await !queueLearnsFinished(upload, within: 0.1), "the upload was never resumed")
        #expect(upload.isExecuting && !upload.isFinished)

        // Cancelling ends the never-started task, whose completion then finishes the operation.
        upload.cancel()
        #expect(await queueLearnsFinished(upload))
        #expect(await drained(queue))
    }

    @Test("with the missing resume() added, the same operation uploads and finishes")
    func withResumeItFinishes() async {
        let upload = ArticleFileUploadOperation(chunkCount: 3, pace: .milliseconds(1), resumesItsTask: true)
        #expect(await OperationQueue().runs(upload))
        #expect(upload.isFinished && !upload.isCancelled)
    }
}
