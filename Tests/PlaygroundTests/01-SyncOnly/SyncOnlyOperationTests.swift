import AsyncOperations
import Foundation
import SyncOnly
import TestSupport
import Testing

// Every order below is caused: the operations' asynchronous work runs on a HeldQueue that
// stays suspended until the test releases it. If the queue waited for that work, the waits
// here would time out instead of returning.
@Suite("Chapter 1 — the sync-only operation")
struct SyncOnlyOperationTests {
    @Test("waitUntilFinished returns while the operation's asynchronous work is still pending")
    func waitReturnsBeforeTheWork() async {
        let held = HeldQueue()
        let log = EventLog()
        let executed = Flag()
        let operation = SyncOnlyOperation(after: .seconds(0), on: held.queue) {
            log.record("Executing")
            executed.raise()
        }
        let queue = OperationQueue()

        let waitReturned = await blockingCall {
            queue.addOperations([operation], waitUntilFinished: true)
            log.record("Finish Execution")
        }

        #expect(waitReturned, "the wait should return although the work is held back")
        #expect(operation.isFinished, "the queue considers the operation finished")
        #expect(log.events == ["Finish Execution"], "the asynchronous work has not run yet")
        held.release()
        #expect(await executed.wait())
        #expect(log.events == ["Finish Execution", "Executing"])
    }

    @Test("a serial queue starts the second closure before the first one's async step ran")
    func serialQueueDoesNotOrderAsyncSteps() async {
        let held = HeldQueue()
        let log = EventLog()
        let bothAsyncStepsRan = Flag()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        for name in ["First", "Second"] {
            queue.addOperation(
                syncThenAsyncStep(name, asyncAfter: .seconds(0), on: held.queue) { line in
                    log.record(line)
                    if line == "Second async operation complete" { bothAsyncStepsRan.raise() }
                })
        }

        #expect(await drained(queue))
        #expect(log.events == ["First sync operation complete", "Second sync operation complete"])
        held.release()
        #expect(await bothAsyncStepsRan.wait())
        #expect(
            log.events == [
                "First sync operation complete",
                "Second sync operation complete",
                "First async operation complete",
                "Second async operation complete",
            ])
    }

    @Test("a dependent operation starts before the asynchronous work it depends on")
    func dependentStartsTooEarly() async {
        let held = HeldQueue()
        let log = EventLog()
        let upstream = SyncOnlyOperation(after: .seconds(0), on: held.queue) { log.record("upstream work") }
        let dependent = BlockOperation { log.record("dependent ran") }
        dependent.addDependency(upstream)
        OperationQueue().add([upstream, dependent])

        #expect(await queueLearnsFinished(dependent))
        #expect(log.events == ["dependent ran"], "the upstream work is still held, yet the dependent ran")
        held.release()
    }

    // Controls: the same scenes with an operation that finishes only once its held work has
    // run (chapter 3's base). They show that the tests above can tell the difference.

    @Test("control: an operation that waits for its work keeps waitUntilFinished waiting while the work is held")
    func waitingOperationHoldsTheWait() async {
        let held = HeldQueue()
        let operation = HeldWorkOperation(on: held.queue) {}
        let waitReturned = Flag()
        Thread {
            OperationQueue().addOperations([operation], waitUntilFinished: true)
            waitReturned.raise()
        }.start()

        #expect(await waitReturned.staysLowered(for: 0.2), "the wait should not return while the work is held")
        held.release()
        #expect(await waitReturned.wait())
    }

    @Test("control: a dependent of an operation that waits for its work runs only after that work")
    func waitingOperationHoldsTheDependent() async {
        let held = HeldQueue()
        let log = EventLog()
        let upstream = HeldWorkOperation(on: held.queue) { log.record("upstream work") }
        let dependent = BlockOperation { log.record("dependent ran") }
        dependent.addDependency(upstream)
        OperationQueue().add([upstream, dependent])

        #expect(await queueDoesNotLearnFinished(dependent, within: 0.2), "the dependent should wait for the held work")
        held.release()
        #expect(await queueLearnsFinished(dependent))
        #expect(log.events == ["upstream work", "dependent ran"])
    }
}

/// An asynchronous operation done right: it finishes when its work, sent to `workQueue`, has
/// run. No thread waits for the work.
private final class HeldWorkOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: constants only, on a thread-safe base.
    private let workQueue: DispatchQueue
    private let work: @Sendable () -> Void

    init(on workQueue: DispatchQueue, work: @escaping @Sendable () -> Void) {
        self.workQueue = workQueue
        self.work = work
    }

    override func main() {
        workQueue.async {
            self.work()
            self.finish()
        }
    }
}
