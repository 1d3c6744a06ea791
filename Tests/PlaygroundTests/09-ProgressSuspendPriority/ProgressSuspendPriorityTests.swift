import AsyncOperations
import Foundation
import ProgressSuspendPriority
import TaskOperations
import TestSupport
import Testing

// Every order below is caused: the operations' work advances only when the test lets a step
// through a Turnstile (a blocking call, run off the test's task by `blockingCall`), and the
// test reads the progress only after the work acknowledged the step.
@Suite("Chapter 9 — progress, suspending and priorities")
struct ProgressSuspendPriorityTests {
    /// Lets one step through, off the cooperative pool; false if the work never acknowledged it.
    func advance(_ turnstile: Turnstile) async -> Bool {
        let acknowledged = Flag()
        let returned = await blockingCall(within: 30) { if turnstile.advance() { acknowledged.raise() } }
        return returned && acknowledged.isRaised
    }

    @Test("the queue's progress counts a BlockOperation, not an AsyncOperation")
    func queueProgressMissesAsyncOperations() async {
        let queue = OperationQueue()
        queue.progress.totalUnitCount = 2
        let block = BlockOperation {}
        let quiet = QuietAsyncOperation()
        #expect(await queue.runs([block, quiet]))
        #expect(block.isFinished && quiet.isFinished)
        #expect(queue.progress.completedUnitCount == 1, "only the BlockOperation counts")
    }

    @Test("the queue's progress counts nothing unless totalUnitCount is set")
    func queueProgressNeedsTotalFirst() async {
        let queue = OperationQueue()
        #expect(await queue.runs([BlockOperation {}, BlockOperation {}]))
        #expect(queue.progress.completedUnitCount == 0)
        #expect(queue.progress.totalUnitCount == 0)
    }

    @Test("totalUnitCount set after adding, before the operations run, still counts them")
    func queueProgressCountsWhatRunsAfterTheTotal() async {
        let queue = OperationQueue()
        queue.isSuspended = true  // nothing runs until the total is set
        queue.add([BlockOperation {}, BlockOperation {}])
        queue.progress.totalUnitCount = 2
        queue.isSuspended = false
        #expect(await drained(queue))
        #expect(queue.progress.completedUnitCount == 2)
    }

    @Test("a parent Progress sees its children, the operations' own, advance step by step")
    func parentSeesChildren() async {
        let turnstile = Turnstile(timeout: 30)
        let first = SteppedOperation("first", steps: 2, turnstile: turnstile)
        let second = SteppedOperation("second", steps: 2, turnstile: turnstile)
        let parent = Progress(totalUnitCount: 2)
        parent.addChild(first.progress, withPendingUnitCount: 1)
        parent.addChild(second.progress, withPendingUnitCount: 1)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.add([first, second])
        var seen: [Double] = [parent.fractionCompleted]
        for _ in 1...4 {
            #expect(await advance(turnstile))
            seen.append(parent.fractionCompleted)
        }
        #expect(seen == [0, 0.25, 0.5, 0.75, 1])
        #expect(await drained(queue))
    }

    @Test("cancelling the parent progress cancels the operation; its work stops at a safe point")
    func progressCancelCancelsTheOperation() async {
        let turnstile = Turnstile(timeout: 30)
        let operation = SteppedOperation("upload", steps: 3, turnstile: turnstile)
        let parent = Progress(totalUnitCount: 1)
        parent.addChild(operation.progress, withPendingUnitCount: 1)
        let queue = OperationQueue()
        queue.addOperation(operation)
        #expect(await advance(turnstile))
        parent.cancel()
        #expect(await blockingCall(within: 30) { _ = operation.waitUntilCancelled(seconds: 30) })
        #expect(operation.isCancelled, "the cancellation handler should cancel the operation")
        #expect(await advance(turnstile))
        #expect(await queueLearnsFinished(operation))
        #expect(operation.progress.completedUnitCount == 1, "no step after the cancel")
    }

    @Test("cancel() on the operation cancels its progress too")
    func operationCancelCancelsProgress() {
        let operation = SteppedOperation("upload", steps: 1, turnstile: Turnstile(timeout: 1))
        operation.cancel()
        #expect(operation.progress.isCancelled)
    }

    @Test("a suspended queue lets a running operation finish, and starts nothing new")
    func suspendDoesNotPause() async {
        let turnstile = Turnstile(timeout: 30)
        let running = SteppedOperation("running", steps: 2, turnstile: turnstile)
        let nextStarted = Flag()
        let next = BlockOperation { nextStarted.raise() }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.add([running, next])
        #expect(await advance(turnstile))
        queue.isSuspended = true
        #expect(await advance(turnstile), "a running operation goes on while its queue is suspended")
        #expect(await queueLearnsFinished(running))
        // A suspended queue always waits out this short deadline; one that ignored
        // isSuspended would start `next` as soon as `running` finished.
        #expect(await nextStarted.staysLowered(for: 0.25), "nothing starts while suspended")
        queue.isSuspended = false
        #expect(await nextStarted.wait(seconds: 30))
    }

    @Test("a suspended queue and its unfinished operation keep each other alive until it resumes")
    func suspendedQueueKeepsItsOperationAlive() async {
        let queueReference = WeakReference()
        let operationReference = WeakReference()
        do {
            let queue = OperationQueue()
            queue.isSuspended = true
            let operation = BlockOperation {}
            queue.addOperation(operation)
            queueReference.object = queue
            operationReference.object = operation
        }  // the program lets go of both
        // Only a negative check: what is kept alive always waits out this short deadline.
        #expect(await operationReference.staysAlive(for: 0.5), "the unfinished operation was freed")
        #expect(await queueReference.staysAlive(for: 0.5), "the suspended queue was freed")
        (queueReference.object as? OperationQueue)?.isSuspended = false
        #expect(await operationReference.isFreed(within: 30))
        #expect(await queueReference.isFreed(within: 30))
    }

    @Test("Progress.pause() stops the work at its next safe point until resume()")
    func pauseAtSafePoint() async {
        let turnstile = Turnstile(timeout: 30)
        let log = EventLog()
        let operation = SteppedOperation("export", steps: 2, turnstile: turnstile, report: log.record)
        OperationQueue().addOperation(operation)
        #expect(await advance(turnstile))
        operation.progress.pause()
        #expect(await advance(turnstile), "the work acknowledges the pause")
        #expect(log.events == ["export: paused before step 2"])
        #expect(operation.progress.completedUnitCount == 1, "no step while paused")
        operation.progress.resume()
        let stepped = Flag()
        #expect(await blockingCall { if turnstile.waitForAcknowledgement() { stepped.raise() } })
        #expect(stepped.isRaised)
        #expect(operation.progress.completedUnitCount == 2)
        #expect(await queueLearnsFinished(operation))
    }

    @Test("queuePriority orders operations that are ready together")
    func priorityAmongReady() async {
        let log = EventLog()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.isSuspended = true
        let priorities: [(String, Operation.QueuePriority)] = [
            ("veryLow", .veryLow), ("low", .low), ("normal", .normal), ("high", .high), ("veryHigh", .veryHigh),
        ]
        let operations = priorities.map { name, priority in
            let operation = BlockOperation { log.record(name) }
            operation.queuePriority = priority
            return operation
        }
        queue.add(operations)
        queue.isSuspended = false
        #expect(await drained(queue))
        #expect(log.events == ["veryHigh", "high", "normal", "low", "veryLow"])
    }

    @Test("a dependency beats any priority")
    func dependencyBeatsPriority() async {
        let log = EventLog()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let first = BlockOperation { log.record("first") }
        first.queuePriority = .veryLow
        let second = BlockOperation { log.record("second") }
        second.queuePriority = .veryHigh
        second.addDependency(first)
        #expect(await queue.runs([second, first]))
        #expect(log.events == ["first", "second"])
    }

    @Test("queuePriority raised after adding, on a serial queue: the raised operation runs first")
    func raisedPriorityRunsFirst() async {
        // The control of the canary `FoundationCanaryTests.raisedPriorityWithAQualityOfService`:
        // the same scene without a quality of service.
        let log = EventLog()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.isSuspended = true
        let first = BlockOperation { log.record("first") }
        let raised = BlockOperation { log.record("raised") }
        queue.add([first, raised])
        raised.queuePriority = .veryHigh
        queue.isSuspended = false
        #expect(await drained(queue))
        #expect(log.events == ["raised", "first"])
    }

    @Test("a barrier block behind an operation waits while its queue is suspended")
    func barrierWaitsWhileSuspended() async {
        // The control of the canary `FoundationCanaryTests.barrierOnASuspendedEmptyQueue`: the
        // queue is not empty.
        let queue = OperationQueue()
        queue.isSuspended = true
        queue.addOperation(BlockOperation {})
        let barrierRan = Flag()
        queue.addBarrierBlock { barrierRan.raise() }
        // Only a negative check: a suspended queue always waits out this short deadline.
        #expect(await barrierRan.staysLowered(for: 0.25), "the barrier block ran while the queue was suspended")
        queue.isSuspended = false
        #expect(await barrierRan.wait(seconds: 30))
    }

    @Test("a barrier block behind an operation runs on the queue's underlyingQueue")
    func barrierRunsOnTheUnderlyingQueue() async {
        // The control of the canary `FoundationCanaryTests.barrierOnAnEmptyQueueOffTheUnderlyingQueue`.
        let key = DispatchSpecificKey<String>()
        let underlying = DispatchQueue(label: "chapter9.underlying")
        underlying.setSpecific(key: key, value: "the underlying queue")
        let queue = OperationQueue()
        queue.underlyingQueue = underlying
        queue.isSuspended = true
        queue.addOperation(BlockOperation {})
        let place = Locked<String?>(nil)
        let ran = Flag()
        queue.addBarrierBlock {
            place.withLock { $0 = DispatchQueue.getSpecific(key: key) ?? "another queue" }
            ran.raise()
        }
        queue.isSuspended = false
        #expect(await ran.wait(seconds: 30))
        #expect(place.withLock { $0 } == "the underlying queue")
        withExtendedLifetime(underlying) {}  // a queue does not keep its underlying queue (Linux)
    }

    @Test("a TaskOperation's own priority reaches its work")
    func taskPriorityReachesTheWork() async throws {
        let high = TaskOperation(priority: .high) { Task.currentPriority }
        let low = TaskOperation(priority: .low) { Task.currentPriority }
        #expect(await OperationQueue().runs([high, low]))
        #expect(try high.value == .high)
        #expect(try low.value == .low)
    }

    @Test("queuePriority does not reach the work: .veryHigh and .veryLow run their tasks at the same priority")
    func queuePriorityDoesNotReachTheWork() async throws {
        // No task priority of their own, so nothing but the queue could set one apart.
        let veryHigh = TaskOperation { Task.currentPriority }
        veryHigh.queuePriority = .veryHigh
        let veryLow = TaskOperation { Task.currentPriority }
        veryLow.queuePriority = .veryLow
        #expect(await OperationQueue().runs([veryHigh, veryLow]))
        #expect(try veryHigh.value == veryLow.value)
    }

    @Test("qualityOfService and queuePriority do not reach a TaskOperation's task either (Linux: .medium)")
    func qualityOfServiceDoesNotReachTheTask() async throws {
        let operation = TaskOperation { Task.currentPriority }
        operation.qualityOfService = .userInteractive
        operation.queuePriority = .veryHigh
        #expect(await OperationQueue().runs(operation))
        #if os(Linux)
            // Measured: .medium. Why, read in the Swift runtime's source: a task created outside any
            // task, without a priority, takes its thread's; on Linux the runtime gives every thread
            // but the main one none, and a task with none runs at the default, .medium.
            #expect(try operation.value == .medium)
        #else
            // Darwin, read in the same source (not run): the runtime reads the thread's quality of
            // service, and lowers user-interactive to user-initiated (.high). Nothing is asserted
            // here until it is checked on a Mac.
            _ = try operation.value
        #endif
    }

    #if os(Linux)
        @Test("Linux: a task created on a thread at .userInteractive, without a priority, runs at .medium")
        func threadQualityOfServiceIsNoTaskPriority() async {
            // What the line above rests on, without an operation queue: the thread's own quality of
            // service does not reach a task created on it.
            let seen = Locked<TaskPriority?>(nil)
            let created = Flag()
            let thread = Thread {
                let task = Task { Task.currentPriority }
                Task {
                    let priority = await task.value
                    seen.withLock { $0 = priority }
                    created.raise()
                }
            }
            thread.qualityOfService = .userInteractive
            thread.start()
            #expect(await created.wait(seconds: 30))
            #expect(seen.withLock { $0 } == .medium)
        }
    #endif

    @Test("the operation is freed once finished")
    func freed() async {
        let reference = WeakReference()
        let turnstile = Turnstile(timeout: 30)
        do {
            let operation = SteppedOperation("freed", steps: 1, turnstile: turnstile)
            reference.object = operation
            OperationQueue().addOperation(operation)
        }
        #expect(await advance(turnstile))
        #expect(await reference.isFreed())
    }
}
