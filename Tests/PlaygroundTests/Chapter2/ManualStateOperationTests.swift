import Foundation
import ManualState
import TestSupport
import Testing

@Suite("Chapter 2 — managing the state by hand")
struct ManualStateOperationTests {
    @Test("the operation stays executing until its asynchronous work calls finish()")
    func executingUntilFinish() async {
        let held = HeldQueue()
        let log = EventLog()
        let started = Flag()
        let operation = DelayedPrintOperation(
            after: .seconds(0), on: held.queue, report: log.recorder(raising: started, at: "Starting"))
        let queue = OperationQueue()
        queue.addOperation(operation)

        #expect(await started.wait())
        #expect(operation.isExecuting && !operation.isFinished, "started, work held back: still executing")
        #expect(queue.operations.contains(operation), "the queue keeps it while its work is pending")
        held.release()
        #expect(await queueLearnsFinished(operation))
        #expect(log.events == ["Starting", "Executing"])
        #expect(operation.isFinished && !operation.isExecuting)
    }

    @Test("waitUntilFinished returns only after finish(): Starting, Executing, Operations finished")
    func waitReturnsAfterFinish() async {
        let log = EventLog()
        let operation = DelayedPrintOperation(after: .seconds(0), report: log.record)
        let queue = OperationQueue()

        let returned = await blockingCall {
            queue.addOperations([operation], waitUntilFinished: true)
            log.record("Operations finished")
        }

        #expect(returned)
        #expect(log.events == ["Starting", "Executing", "Operations finished"])
    }

    @Test("a dependency starts only after finish()")
    func dependentWaitsForFinish() async {
        let held = HeldQueue()
        let log = EventLog()
        let started = Flag()
        let upstream = DelayedPrintOperation(
            after: .seconds(0), on: held.queue, report: log.recorder(raising: started, at: "Starting"))
        let dependent = BlockOperation { log.record("dependent ran") }
        dependent.addDependency(upstream)
        OperationQueue().add([upstream, dependent])

        #expect(await started.wait())
        #expect(!dependent.isReady, "the queue may not start the dependent while upstream executes")
        held.release()
        #expect(await queueLearnsFinished(dependent))
        #expect(log.events == ["Starting", "Executing", "dependent ran"])
    }

    @Test("forgetting to announce isFinished leaves the queue waiting (bounded)")
    func missingIsFinishedAnnouncement() async {
        let workDone = Flag()
        let operation = SilentFinishOperation(workDone: workDone.raise)
        let dependent = BlockOperation {}
        dependent.addDependency(operation)
        let queue = OperationQueue()
        queue.add([operation, dependent])

        #expect(await workDone.wait())
        #expect(operation.isFinished, "its own flag says finished...")
        #expect(!dependent.isReady, "...but the queue was never told, so the dependent is never ready")
        #expect(queue.operations.contains(operation), "and the queue still holds the operation")
        #expect(await !queueLearnsFinished(operation, within: 0.2), "a wait for it would never end")

        operation.announceFinishedLate()  // the missing line releases everything
        #expect(await queueLearnsFinished(dependent))
        #expect(await drained(queue))
    }

    @Test("the barrier-queue version of the articles works the same way")
    func barrierQueueOperationFinishes() async {
        let operation = TestBarrierOperation()
        let dependent = BlockOperation {}
        dependent.addDependency(operation)
        OperationQueue().add([operation, dependent])
        #expect(await queueLearnsFinished(dependent))
        #expect(operation.isFinished && !operation.isExecuting)
    }

    @Test("many operations finishing from other threads all finish exactly once")
    func concurrentFinishes() async {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 8
        let operationCount = 500
        let completions = Counter(target: operationCount)
        let operations = (0..<operationCount).map { _ in
            let operation = DelayedPrintOperation(after: .seconds(0)) { _ in }
            operation.completionBlock = completions.increment
            return operation
        }
        queue.add(operations)
        #expect(await drained(queue))
        #expect(operations.allSatisfy { $0.isFinished && !$0.isExecuting })
        // Completion blocks run on a global queue after the operation finished: await them.
        #expect(await completions.waitForTarget())
        #expect(completions.value == operationCount)
    }
}

private final class TestBarrierOperation: BarrierQueueOperation, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func main() {
        DispatchQueue.global().async { self.finish() }
    }
}

#if os(macOS) || os(Linux)
    @Suite("Chapter 2 — posting notifications while holding the lock")
    struct NotifyingUnderLockTests {
        /// The child process exits with this status when `finish()` did not return in time.
        static let deadlocked: Int32 = 3

        @Test("didChangeValue posted while holding the getters' lock deadlocks (bounded, in a child process)")
        func deadlocks() async {
            // An exit test runs in a child process: the deadlocked thread dies with it.
            await #expect(processExitsWith: .exitCode(NotifyingUnderLockTests.deadlocked)) {
                exit(NotifyingUnderLockTests.finishReturns(within: 0.5) ? 0 : NotifyingUnderLockTests.deadlocked)
            }
        }

        /// Runs the operation and blocks until its `finish()` returns, at most `seconds`.
        /// Synchronous on purpose: a blocking wait has no place in async code (Apple's SDK
        /// makes it an error there), and in the child process nothing else needs this thread.
        static func finishReturns(within seconds: Double) -> Bool {
            let returned = DispatchSemaphore(value: 0)
            let operation = NotifyingUnderLockOperation { returned.signal() }
            OperationQueue().addOperation(operation)
            return returned.wait(timeout: .now() + seconds) == .success
        }
    }

    @Suite("Chapter 2 — a recursive lock does not prevent the deadlock with a waiting thread")
    struct RecursiveLockDeadlockTests {
        @Test(
            "announcing under a recursive lock deadlocks against waitUntilFinished() on other threads (bounded, in a child)"
        )
        func inversionDeadlocks() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardOutputContent]) {
                // Up to 20 rounds of 2,000 operations; a round that does not end within 1 s is
                // the deadlock. Each round hit it in about half of the runs measured here.
                for round in 1...20 where !Self.allWaitsReturn(announcingUnderLock: true, within: 1) {
                    print("deadlocked in round \(round)")
                    exit(3)
                }
                exit(0)
            }
            // Under ThreadSanitizer the child reports the inversion and exits with its own status.
            let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
            #expect(printed.contains("deadlocked in round"))
        }

        @Test("the same operations announcing after unlocking: every wait returns")
        func outsideTheLockIsFine() async {
            await #expect(processExitsWith: .success) {
                for _ in 1...2 where !Self.allWaitsReturn(announcingUnderLock: false, within: 5) { exit(3) }
                exit(0)
            }
        }

        /// Runs 2,000 operations on a queue while four threads wait for them with
        /// `waitUntilFinished()`; true if every wait returned within `seconds`. Synchronous: it
        /// blocks, which only a child process's own threads may.
        static func allWaitsReturn(announcingUnderLock: Bool, within seconds: Double) -> Bool {
            let operations = (0..<2000).map { _ in RecursiveLockOperation(announcesUnderLock: announcingUnderLock) }
            OperationQueue().addOperations(operations, waitUntilFinished: false)
            let waitersDone = DispatchSemaphore(value: 0)
            let waiterCount = 4
            for waiter in 0..<waiterCount {
                Thread {
                    for (index, operation) in operations.enumerated() where index % waiterCount == waiter {
                        operation.waitUntilFinished()
                    }
                    waitersDone.signal()
                }.start()
            }
            let deadline = DispatchTime.now() + seconds
            return (0..<waiterCount).allSatisfy { _ in waitersDone.wait(timeout: deadline) == .success }
        }
    }
#endif
