import AsyncOperations
import Cancellation
import Dispatch
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
        #expect(await queueDoesNotLearnFinished(upload, within: 0.5), "the upload was never resumed")
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

    @Test("its cancel() stops the task first: a completion that finishes the operation in between loses the cancel")
    func cancelLostToTheCompletion() async {
        let created = Flag()
        let outcome = Locked<UploadOutcome?>(nil)
        let held = HeldUntilADependentLooks()
        let upload = ConcurrentSolutionsPost.FileUploadOperation(
            chunkCount: 1_000, pace: .seconds(60), resumesItsTask: true, createdItsTask: created.raise,
            stoppedItsTask: held.hold,  // between the task's cancel() and super.cancel()
            handleResponse: { reported in outcome.withLock { $0 = reported } })
        let queue = OperationQueue()
        queue.add([upload, held.dependent(of: upload)])
        #expect(await created.wait())

        #expect(await blockingCall { upload.cancel() })  // the user cancels the running upload
        #expect(!held.gaveUpWaiting, "the stopped task's completion finished the operation while cancel() was held")
        #expect(held.dependentSaw == "isFinished true, isCancelled false")
        guard case .cancelled = outcome.withLock({ $0 }) else {
            Issue.record("the task reported \(String(describing: outcome.withLock { $0 })), not a cancellation")
            return
        }
        // super.cancel() came after the operation had finished: Foundation ignored it, for good.
        #expect(upload.isFinished && !upload.isCancelled)
        #expect(await drained(queue))
    }

    @Test("the fix: the flag first, then the task — under the same hold, whoever learns 'finished' sees isCancelled")
    func flagFirstKeepsTheCancel() async {
        let firstChunk = Flag()
        let held = HeldUntilADependentLooks()
        // UploadOperation on the package's base: cancel() sets the flag, then runs the onCancel
        // handlers in order — main()'s, which stops the task, then this test's, which holds.
        let upload = UploadOperation(chunkCount: 1_000, pace: .seconds(60)) { progress, upload in
            guard progress.sent == 1 else { return }
            upload.onCancel(held.hold)
            firstChunk.raise()
        }
        let queue = OperationQueue()
        queue.add([upload, held.dependent(of: upload)])
        #expect(await firstChunk.wait())

        #expect(await blockingCall { upload.cancel() })
        #expect(!held.gaveUpWaiting, "the stopped task's completion finished the operation while cancel() was held")
        #expect(held.dependentSaw == "isFinished true, isCancelled true")
        #expect(upload.outcome == .cancelled(afterChunks: 1))  // the second chunk would take 60 s
        #expect(upload.isFinished && upload.isCancelled)
        #expect(await drained(queue))
    }
}

/// Holds `cancel()` where a test calls `hold()`, until a dependent of the cancelled operation
/// has run and recorded what it saw of it (at most 60 s).
private final class HeldUntilADependentLooks: Sendable {
    private let looked = DispatchSemaphore(value: 0)
    private let seen = Locked<String?>(nil)
    private let gaveUp = Flag()

    /// A blocking wait: called inside `cancel()`, which the tests call on a thread of its own.
    @Sendable func hold() {
        if looked.wait(timeout: .now() + 60) == .timedOut { gaveUp.raise() }
    }

    /// The dependent that looks at `operation`'s flags, then ends the hold.
    func dependent(of operation: Operation) -> BlockOperation {
        let dependent = BlockOperation { [seen, looked] in
            seen.withLock { $0 = "isFinished \(operation.isFinished), isCancelled \(operation.isCancelled)" }
            looked.signal()
        }
        dependent.addDependency(operation)
        return dependent
    }

    var dependentSaw: String? { seen.withLock { $0 } }
    var gaveUpWaiting: Bool { gaveUp.isRaised }
}
