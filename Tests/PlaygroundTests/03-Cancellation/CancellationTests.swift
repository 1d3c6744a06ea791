import AsyncOperations
import Cancellation
import Foundation
import TestSupport
import Testing

@Suite("Chapter 3 — cancellation")
struct CancellationTests {
    @Test("a cancelled operation prints Starting and finishes without Executing")
    func cancelledDelayedPrint() async {
        let log = EventLog()
        let operation = CancellableDelayedPrintOperation(after: .seconds(0), report: log.record)
        operation.cancel()
        OperationQueue().addOperation(operation)
        #expect(await queueLearnsFinished(operation))
        #expect(log.events == ["Starting"])
        #expect(operation.isFinished && !operation.isExecuting)
    }

    @Test("an upload that is not cancelled sends every chunk")
    func uploadCompletes() async {
        let operation = UploadOperation(chunkCount: 3, pace: .seconds(0))
        OperationQueue().addOperation(operation)
        #expect(await queueLearnsFinished(operation))
        #expect(operation.outcome == .uploaded(chunks: 3))
    }

    @Test("cancelling a running upload cancels its task, and the queue drains")
    func cancelRunningUpload() async {
        let log = EventLog()
        let operation = UploadOperation(chunkCount: 5, pace: .seconds(0)) { progress, operation in
            log.record("sent \(progress.sent)")
            if progress.sent == 2 { operation.cancel() }
        }
        let queue = OperationQueue()
        queue.addOperation(operation)
        #expect(await drained(queue))
        #expect(log.events == ["sent 1", "sent 2"], "no chunk is sent after cancel()")
        #expect(operation.outcome == .cancelled(afterChunks: 2))
        #expect(operation.isFinished && operation.isCancelled)
    }

    /// Where a cancel() can land in an upload's life, each forced in turn.
    enum Moment: String, CaseIterable, CustomTestStringConvertible {
        case beforeStart = "before start()"
        case beforeTheTaskExists = "after start(), before main() creates the upload task"
        case whileUploading = "while the upload runs"
        var testDescription: String { rawValue }
    }

    @Test(
        "a cancel() at each moment of an upload's life stops it: the queue drains, and the outcome says where",
        arguments: Moment.allCases)
    func cancelAtEachMoment(_ moment: Moment) async {
        // Each upload would take an hour if its cancellation were lost: the bound only decides
        // that a broken version fails. The moment is forced, never left to a race.
        let queue = OperationQueue()
        let upload: UploadOperation
        switch moment {
        case .beforeStart:
            queue.isSuspended = true
            upload = UploadOperation(chunkCount: 2, pace: .seconds(3600))
            queue.addOperation(upload)
            upload.cancel()
            queue.isSuspended = false
        case .beforeTheTaskExists:
            upload = CancelledAsMainBegins(chunkCount: 2, pace: .seconds(3600))
            queue.addOperation(upload)
        case .whileUploading:
            upload = UploadOperation(chunkCount: 2, pace: .seconds(3600)) { progress, operation in
                if progress.sent == 1 { operation.cancel() }
            }
            queue.addOperation(upload)
        }
        #expect(await queueLearnsFinished(upload, within: 60), "the cancel was lost: the upload runs for an hour")
        #expect(upload.isFinished && upload.isCancelled && !upload.isExecuting)
        let expected: UploadOutcome? =
            switch moment {
            case .beforeStart: nil  // main() never ran: no upload task was created
            case .beforeTheTaskExists: .cancelled(afterChunks: 0)  // the handler registered late ran at once
            case .whileUploading: .cancelled(afterChunks: 1)
            }
        #expect(upload.outcome == expected)
    }

    @Test(
        """
        200 uploads cancelled as they are added: every one ends cancelled, and the queue drains (where each \
        cancel lands is left to chance: a smoke test, not a proof)
        """)
    func cancelledAsTheyAreAdded() async {
        // The realistic mix. Which moment each cancel() lands in is left to the race (in the runs
        // seen here, every one landed before start()); cancelAtEachMoment forces each moment.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        let uploads = (0..<200).map { _ in UploadOperation(chunkCount: 2, pace: .seconds(3600)) }
        for upload in uploads {
            queue.addOperation(upload)
            upload.cancel()
        }
        #expect(await drained(queue, within: 60))
        #expect(uploads.allSatisfy { $0.isFinished && $0.isCancelled })
    }

    @Test("cancelAllOperations() on a serial queue: all finish, no pending one runs its work")
    func cancelAllOnSerialQueue() async {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let uploads = (1...4).map { number in
            UploadOperation(chunkCount: 3, pace: .seconds(3600)) { progress, _ in
                if number == 1 && progress.sent == 1 { queue.cancelAllOperations() }
            }
        }
        queue.add(uploads)
        // Not drained(queue): its barrier block would be cancelled too (see the Linux test below).
        for upload in uploads { #expect(await queueLearnsFinished(upload)) }
        #expect(uploads[0].outcome == .cancelled(afterChunks: 1))
        #expect(uploads.dropFirst().allSatisfy { $0.outcome == nil }, "pending uploads never started")
        #expect(uploads.allSatisfy { $0.isFinished && $0.isCancelled && !$0.isExecuting })
    }

    @Test("returning early from main() on cancellation, without finish(), leaves the queue waiting (bounded)")
    func earlyReturnHangs() async {
        let returnedEarly = Flag()
        let operation = EarlyReturnOperation { line in
            if line.hasPrefix("main() returned early") { returnedEarly.raise() }
        }
        let queue = OperationQueue()
        queue.isSuspended = true
        queue.addOperation(operation)
        operation.cancel()
        queue.isSuspended = false

        #expect(await returnedEarly.wait())
        #expect(operation.isExecuting && !operation.isFinished, "main() returned, but nobody finishes it")
        #expect(await doesNotDrain(queue, within: 0.2), "the queue would wait forever")

        operation.finish()  // what main() should have done
        #expect(await drained(queue))
    }
}

/// An upload cancelled at the top of its own `main()`: the operation is executing and cancelled,
/// and `UploadOperation.main()` has not yet created the task it registers with `onCancel`.
private final class CancelledAsMainBegins: UploadOperation, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func main() {
        cancel()
        super.main()
    }
}
