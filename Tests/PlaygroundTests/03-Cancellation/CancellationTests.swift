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

    @Test(
        """
        200 uploads cancelled as they are added, wherever each cancel() lands (the realistic mix): \
        every one ends cancelled, and the queue drains
        """)
    func cancelRacesWithMain() async {
        // Each upload would take an hour if its cancellation were lost, so the queue draining
        // at all proves that none was; the hour never decides an order. Which moment each
        // cancel() lands in is left to the race, and in the runs seen here every one landed
        // before start(): this is the common path, not the window between start()'s look and
        // main() creating the task, which cancelBeforeTheTaskExists holds open.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        let uploads = (0..<200).map { _ in UploadOperation(chunkCount: 2, pace: .seconds(3600)) }
        for upload in uploads {
            queue.addOperation(upload)
            upload.cancel()
        }
        #expect(await drained(queue))
        #expect(uploads.allSatisfy { $0.isFinished && $0.isCancelled })
        let stoppedOrNeverStarted = uploads.allSatisfy {
            $0.outcome == nil || $0.outcome == .cancelled(afterChunks: $0.outcome.sentChunks)
        }
        #expect(stoppedOrNeverStarted)
    }

    @Test("cancel() after main() began, before the task exists: the handler registered afterwards runs at once")
    func cancelBeforeTheTaskExists() async {
        // The window between start() deciding to run and main() registering onCancel, held
        // open: main() returns at once, and the test creates the upload task only after it has
        // cancelled. A handler registered after the cancel must run at once; if it were
        // dropped, the task would send its hour-long chunks, and the queue would not drain.
        let operation = LateTaskUpload()
        let queue = OperationQueue()
        queue.addOperation(operation)
        #expect(await operation.mainRan.wait(seconds: 30))
        operation.cancel()
        operation.createTheTask()
        #expect(await drained(queue), "the late handler should have cancelled the task")
        #expect(operation.outcome.withLock { $0 } == .cancelled(afterChunks: 0))
        #expect(operation.isFinished && operation.isCancelled)
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
        #expect(await !drained(queue, within: 0.2), "the queue would wait forever")

        operation.finish()  // what main() should have done
        #expect(await drained(queue))
    }
}

/// `UploadOperation`'s pattern, with its upload task created later than `main()`, when the test
/// says so: `main()` only tells the test it ran.
private final class LateTaskUpload: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: its state is a Flag and a Locked value, both thread-safe.
    let mainRan = Flag()
    let outcome = Locked<UploadOutcome?>(nil)

    override func main() { mainRan.raise() }

    /// What `UploadOperation.main()` does: create the task, register its cancellation, start it.
    func createTheTask() {
        let upload = LocalUploadTask(chunkCount: 2, pace: .seconds(3600)) { outcome in
            self.outcome.withLock { $0 = outcome }
            self.finish()
        }
        onCancel { upload.cancel() }
        upload.resume()
    }
}

extension UploadOutcome? {
    /// The chunks a cancelled upload had sent (0 otherwise), to compare outcomes.
    fileprivate var sentChunks: Int {
        if case .cancelled(let sent)? = self { return sent }
        return 0
    }
}
