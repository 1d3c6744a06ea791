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
        #expect(!(await nextStarted.wait(seconds: 0.25)), "nothing starts while suspended")
        queue.isSuspended = false
        #expect(await nextStarted.wait(seconds: 30))
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
            // Linux's Dispatch has no quality of service: the queue's thread reports none, and a
            // task created there without a priority of its own gets the default, .medium.
            #expect(try operation.value == .medium)
        #else
            // Darwin, inferred (not run): the queue runs the operation on a thread of its quality
            // of service, and a task created there takes that thread's priority, higher than
            // .medium. Nothing is asserted here until it is checked on a Mac.
            _ = try operation.value
        #endif
    }

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
