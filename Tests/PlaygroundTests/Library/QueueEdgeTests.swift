import AsyncOperations
import CompletionOperations
import Foundation
import TaskOperations
import TestSupport
import Testing

// The package's operations where a real app puts them: in a suspended queue, on a serial queue,
// started by hand from another queue's block, given a dependency that never runs. Scenes that
// could crash or hang run in a child process with a watchdog.

/// Serialized: its child processes, one at a time, leave the rest of the suite the processors.
@Suite(
    "The library on a queue's edges: suspended, serial, dependencies that never run", .serialized,
    .timeLimit(.minutes(2)))
struct QueueEdgeTests {
    #if os(macOS) || os(Linux)
        @Test(
            "waitUntilAllOperationsAreFinished() of a suspended queue whose only operation finished cancelled returns",
            .exitTest)
        func waitForASuspendedQueue() async {
            await #expect(processExitsWith: .success) {
                startWatchdog(seconds: 30)  // a wait that never returns fails here
                EdgeScenes.waitForSuspendedQueues(rounds: 5)
                exit(0)
            }
        }

        @Test(
            "start() by hand inside another queue's block, before a dependency finished, traps naming the mistake",
            .exitTest)
        func notReadyHandStartInAnotherQueue() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                startWatchdog(seconds: 30)
                EdgeScenes.notReadyHandStartInAnotherQueuesBlock()
                exit(0)
            }
            let printed = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(printed.contains("was started by hand before its dependencies finished"), "\(printed)")
        }

    #endif

    // Bounded scenes that block their thread: each runs on a thread of its own
    // (`blockingCall`), never on the cooperative pool.

    @Test("cancelled in a suspended queue: the queue lets go of it, and the dropped queue is freed")
    func cancelledInASuspendedQueue() async {
        let problem = Locked<String?>("did not return")
        #expect(await blockingCall(within: 30) { problem.withLock { $0 = EdgeScenes.cancelInASuspendedQueue() } })
        #expect(problem.withLock { $0 } == nil)
    }

    @Test("added, then its queue suspended and it cancelled: 200 times, no operation left behind in the queue")
    func suspendedRightAfterAdding() async {
        let left = Locked(-1)
        #expect(await blockingCall(within: 60) { left.withLock { $0 = EdgeScenes.suspendThenCancel(rounds: 200) } })
        #expect(left.withLock { $0 } == 0)
    }

    @Test("cancel() then start() by hand inside another queue's block: finished and freed, that queue untouched")
    func cancelledHandStartInAnotherQueue() async {
        let freed = Locked(false)
        #expect(
            await blockingCall(within: 30) {
                freed.withLock { $0 = EdgeScenes.cancelledHandStartInASerialQueuesBlock() }
            })
        #expect(freed.withLock { $0 }, "something of it waits in that queue, behind its other operations")
    }

    @Test("a cancelled operation on a serial queue is freed once it finished, not when the line behind it has run")
    func cancelledOnASerialQueueIsFreedAtOnce() async {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let blocker = HeldOperation()
        let behind = HeldOperation()
        let reference = WeakReference()
        do {
            let operation = QuickOperation()
            reference.object = operation
            queue.add([blocker, operation, behind])
            operation.cancel()
        }
        blocker.release()
        #expect(await blockingCall { behind.running.wait() })  // the cancelled one finished before
        #expect(await reference.isFreed(), "kept until the operations behind it have run")
        behind.release()
        #expect(await drained(queue))
    }

    @Test("a finished operation given a dependency that never runs is freed, and still lists it")
    func lateDependencyThatNeverRuns() async {
        let reference = WeakReference()
        let dependency = BlockOperation {}
        do {
            let operation = QuickOperation()
            reference.object = operation
            #expect(await OperationQueue().runs(operation))
            operation.addDependency(dependency)
            #expect(operation.dependencies.contains { $0 === dependency })
        }
        #expect(await reference.isFreed(), "a BlockOperation in its place is freed")
    }

    @Test("a cancelled operation whose dependency is never queued is freed, and still lists it")
    func cancelledWithADependencyThatNeverRuns() async {
        let reference = WeakReference()
        let dependency = BlockOperation {}
        do {
            let operation = QuickOperation()
            reference.object = operation
            operation.addDependency(dependency)
            let queue = OperationQueue()
            queue.addOperation(operation)
            operation.cancel()
            #expect(await queueLearnsFinished(operation))
            #expect(operation.dependencies.contains { $0 === dependency })
        }
        #expect(await reference.isFreed(), "a BlockOperation in its place is freed")
    }
}

/// The scenes of `QueueEdgeTests`, synchronous: they block their thread (the child process's,
/// never the cooperative pool's).
enum EdgeScenes {
    struct WeakOperation {
        weak var operation: Operation?
    }

    /// Waits (blocking) until `condition` holds, at most `seconds`.
    static func eventually(within seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = DispatchTime.now() + seconds
        while !condition() {
            guard DispatchTime.now() < deadline else { return false }
            usleep(1_000)
        }
        return true
    }

    /// An operation that its queue has sent to Dispatch is cancelled once the queue is
    /// suspended. Returns what went wrong, nil if nothing did.
    static func cancelInASuspendedQueue() -> String? {
        let dispatch = DispatchQueue(label: "held")
        dispatch.suspend()
        weak var weakOperation: Operation?
        weak var weakQueue: OperationQueue?
        let finished = DispatchSemaphore(value: 0)
        var problem: String?
        do {
            let queue = OperationQueue()
            weakQueue = queue
            queue.underlyingQueue = dispatch
            let operation = QuickOperation()
            weakOperation = operation
            operation.completionBlock = { finished.signal() }
            queue.addOperation(operation)  // its start waits in the held dispatch queue
            queue.isSuspended = true
            operation.cancel()
            dispatch.resume()
            guard finished.wait(timeout: .now() + 60) == .success else { return "it never finished" }
            if !eventually(within: 30, { queue.operationCount == 0 }) {
                problem = "the queue still holds \(queue.operations)"
            }
        }
        if let problem { return problem }
        guard eventually(within: 30, { weakOperation == nil }) else { return "the operation was never freed" }
        guard eventually(within: 30, { weakQueue == nil }) else { return "the dropped queue was never freed" }
        return nil
    }

    /// Adds an operation, suspends its queue at once and cancels the operation; returns how
    /// many rounds left something in the queue once the operation had finished.
    static func suspendThenCancel(rounds: Int) -> Int {
        var left = 0
        for _ in 0..<rounds {
            let queue = OperationQueue()
            let operation = QuickOperation()
            queue.addOperation(operation)  // sent to Dispatch at once
            queue.isSuspended = true
            operation.cancel()
            operation.waitUntilFinished()
            // The queue removes a finished operation just after waking the waiters.
            if !eventually(within: 30, { queue.operationCount == 0 }) { left += 1 }
        }
        return left
    }

    /// Adds an operation, whose start the queue sends to a held dispatch queue; suspends the
    /// queue, cancels the operation, lets the start go on; waits until the operation finished,
    /// then until the queue has no operation left.
    static func waitForSuspendedQueues(rounds: Int) {
        for _ in 0..<rounds {
            let dispatch = DispatchQueue(label: "held")
            dispatch.suspend()
            let queue = OperationQueue()
            queue.underlyingQueue = dispatch
            let operation = QuickOperation()
            queue.addOperation(operation)
            queue.isSuspended = true
            operation.cancel()
            dispatch.resume()
            operation.waitUntilFinished()
            queue.waitUntilAllOperationsAreFinished()
        }
    }

    /// A block of another queue starts an operation by hand whose dependency never runs.
    static func notReadyHandStartInAnotherQueuesBlock() {
        let other = OperationQueue()
        other.addOperation {
            let operation = CompletionOperation { done in done() }
            operation.addDependency(BlockOperation {})
            operation.start()
        }
        other.waitUntilAllOperationsAreFinished()
    }

    /// On a serial queue whose next operation holds it, a block cancels an operation that is
    /// in no queue and starts it by hand. True if the operation is freed while the queue is
    /// still held: nothing of it waits in that unrelated queue.
    static func cancelledHandStartInASerialQueuesBlock() -> Bool {
        let other = OperationQueue()
        other.maxConcurrentOperationCount = 1
        let reference = Locked(WeakOperation())
        let started = DispatchSemaphore(value: 0)
        other.addOperation {
            let operation = QuickOperation()
            reference.withLock { $0.operation = operation }
            operation.cancel()
            operation.start()
            started.signal()
        }
        let behind = HeldOperation()
        other.addOperation(behind)
        started.wait()
        behind.running.wait()
        let freed = eventually(within: 30) { reference.withLock { $0.operation == nil } }
        behind.release()
        other.waitUntilAllOperationsAreFinished()
        return freed
    }
}
