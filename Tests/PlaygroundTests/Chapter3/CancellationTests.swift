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

    @Test("cancel() racing with main(): the upload task is cancelled either way")
    func cancelRacesWithMain() async {
        // Each upload would take an hour if its cancellation were lost, so the queue
        // draining at all proves every task was cancelled; the hour never decides an order.
        // Most cancels land before start() or after main(): the window between them is what
        // cancelBeforeTheTaskExists holds open. This one is the realistic mix.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        let uploads = (0..<200).map { _ in UploadOperation(chunkCount: 2, pace: .seconds(3600)) }
        for upload in uploads {
            queue.addOperation(upload)
            upload.cancel()
        }
        #expect(await drained(queue))
        for upload in uploads {
            #expect(upload.outcome == nil || upload.outcome == .cancelled(afterChunks: upload.outcome.sentChunks))
        }
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

#if os(macOS) || os(Linux)
    @Suite("Chapter 3 — finishing a pending operation from cancel()")
    struct FinishOnCancelTests {
        @Test("Foundation warns when cancel() finishes an operation that waits in its queue", .exitTest)
        func popularCancelIsWarnedAbout() async throws {
            let result = await #expect(
                processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]
            ) {
                // FinishOnCancelOperation finishes itself in cancel(), though it is still pending.
                PendingCancel.cancelWhilePendingThenExit(FinishOnCancelOperation { _ in })
            }
            // Exit status 0: it reported finished while its queue had not started it.
            #if os(Linux)
                // Linux's Foundation prints its warning to standard output.
                let output = result.map(PendingCancel.printedOutput) ?? ""
                #expect(output.contains(PendingCancel.warning), "output was: \(output)")
            #else
                // Darwin's Foundation logs it through its own logging: the effect is what counts.
                _ = result
            #endif
        }

        @Test("AsyncOperation in the same situation: no warning, and the queue drains", .exitTest)
        func safeCancelIsQuiet() async throws {
            let result = await #expect(
                processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]
            ) {
                final class Quick: AsyncOperation, @unchecked Sendable {
                    // @unchecked Sendable: no state of its own.
                    override func main() { finish() }
                }
                PendingCancel.cancelWhilePendingThenDrain(Quick())
            }
            // Exit status 0: not finished while pending, and the queue drained.
            #if os(Linux)
                let output = result.map(PendingCancel.printedOutput) ?? ""
                #expect(!output.contains(PendingCancel.warning), "output was: \(output)")
            #else
                _ = result  // Darwin logs the warning elsewhere; the exit status is the check.
            #endif
        }
    }

    #if os(Linux)
        @Suite("Chapter 3 — a Linux Foundation bug")
        struct BarrierCancelBugTests {
            @Test(
                "cancelAllOperations() with a pending addBarrierBlock crashes, or loses the barrier, on Linux",
                .exitTest)
            func cancellingABarrierBlockFails() async {
                // Reproduced with swift-corelibs-foundation of Swift 6.3: a plain build crashes
                // (bad pointer dereference); under ThreadSanitizer the barrier block never
                // runs instead. If this test starts failing, Foundation was fixed: update
                // chapter 3's README and this test.
                await #expect(processExitsWith: .failure) {
                    exit(BarrierCancelBugTests.barrierRunsAfterCancelAll() ? 0 : 2)
                }
            }

            /// Cancels a suspended serial queue holding a block and a barrier block, resumes it,
            /// and tells whether the barrier ran within 0.5 s. Synchronous: it blocks.
            static func barrierRunsAfterCancelAll() -> Bool {
                let queue = OperationQueue()
                queue.maxConcurrentOperationCount = 1
                queue.isSuspended = true
                queue.addOperation {}
                let barrierRan = DispatchSemaphore(value: 0)
                queue.addBarrierBlock { barrierRan.signal() }
                queue.cancelAllOperations()
                queue.isSuspended = false
                return barrierRan.wait(timeout: .now() + 0.5) == .success
            }
        }
    #else
        // Darwin: a cancelled barrier block is a cancelled dependent there too, but whether
        // Darwin's Foundation holds dependents unretained is not documented; not asserted.
    #endif
#endif
