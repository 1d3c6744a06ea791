import AsyncOperations
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
        let held = HeldQueue()
        let log = EventLog()
        let started = Flag()
        let operation = DelayedPrintOperation(
            after: .seconds(0), on: held.queue, report: log.recorder(raising: started, at: "Starting"))
        let queue = OperationQueue()
        let returned = Flag()
        Thread {
            queue.addOperations([operation], waitUntilFinished: true)
            log.record("Operations finished")
            returned.raise()
        }.start()

        #expect(await started.wait())
        #expect(await !returned.wait(seconds: 0.2), "the wait may not return while the work is held back")
        held.release()
        #expect(await returned.wait())
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

    @Test("forgetting to announce isFinished leaves the dependent waiting, though the flag says finished (bounded)")
    func missingIsFinishedAnnouncement() async {
        let scene = await SilentFinishScene.afterTheQueueLooked()
        #expect(scene.workDone, "the silent finish ran")
        #expect(scene.operation.isFinished, "its own flag says finished...")
        #expect(!scene.dependent.isReady, "...but the queue was never told, so the dependent is never ready")
        #expect(scene.queue.operations.contains(scene.operation), "and the queue still holds the operation")
        #expect(await !queueLearnsFinished(scene.dependent, within: 0.2), "nothing moves")

        scene.operation.announceFinishedLate()  // the missing line releases everything
        #expect(await queueLearnsFinished(scene.dependent))
        #expect(await drained(scene.queue))
    }

    #if os(Linux)
        @Test("after a silent finish, waitUntilFinished() returns at once; waitUntilAllOperationsAreFinished() hangs")
        func waitsAfterSilentFinish() async {
            // Linux: waitUntilFinished() reads the operation's isFinished, which says true;
            // the queue still holds the operation, so waiting for the queue never ends.
            // Darwin: how either wait learns "finished" is not documented (not run on a Mac).
            let scene = await SilentFinishScene.afterTheQueueLooked()
            let (operation, queue) = (scene.operation, scene.queue)
            #expect(await blockingCall(within: 30) { operation.waitUntilFinished() }, "returns: the flag is true")
            #expect(
                await !blockingCall(within: 0.5) { queue.waitUntilAllOperationsAreFinished() },
                "the queue's wait does not return")
            operation.announceFinishedLate()  // also lets the blocked queue wait return
            #expect(await drained(queue))
        }
    #endif

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

/// A `SilentFinishOperation` with a dependent, on a queue, and its silent finish released
/// only after the queue has started it and taken its one look at `isFinished`.
private struct SilentFinishScene {
    let operation: SilentFinishOperation
    let dependent: BlockOperation
    let queue: OperationQueue
    let workDone: Bool

    /// The queue runs `start()` — and, on Linux, its look at `isFinished` right after — in one
    /// block on its underlying dispatch queue. That queue is serial here, so a block sent to it
    /// from `start()` runs only once that look is over: it releases the held work. Without
    /// that, the silent finish could land before the look, and the queue would see it.
    static func afterTheQueueLooked() async -> SilentFinishScene {
        let held = HeldQueue("silent-finish-work")
        let queuesThread = DispatchQueue(label: "the queue's thread")
        let workDone = Flag()
        let operation = SilentFinishOperation(
            on: held.queue,
            started: { queuesThread.async { held.release() } },
            workDone: workDone.raise)
        let dependent = BlockOperation {}
        dependent.addDependency(operation)
        let queue = OperationQueue()
        queue.underlyingQueue = queuesThread
        queue.add([operation, dependent])
        return SilentFinishScene(
            operation: operation, dependent: dependent, queue: queue, workDone: await workDone.wait())
    }
}
