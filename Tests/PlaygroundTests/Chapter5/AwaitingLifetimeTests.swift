import AsyncOperations
import Foundation
import TaskOperations
import TestSupport
import Testing

@Suite("Chapter 5 — awaiting many operations, and what a cancelled await leaves behind", .timeLimit(.minutes(1)))
struct AwaitingLifetimeTests {
    @Test("run(_:) of no operation returns at once; of 1,000, once all have finished")
    func runNoneAndMany() async {
        let queue = OperationQueue()
        #expect(await queue.runs([]))
        // More operations than one observer watches, in a chain, so that the last one to
        // finish is the last one of the list.
        let finished = Counter()
        let operations = (0..<1_000).map { _ in BlockOperation { finished.increment() } }
        for (earlier, later) in zip(operations, operations.dropFirst()) { later.addDependency(earlier) }
        #expect(await queue.runs(operations.reversed()))
        #expect(finished.value == 1_000)
        #expect(operations.allSatisfy { $0.isFinished })
    }

    @Test("untilFinished() of an operation that finished long ago returns at once")
    func untilFinishedAfterTheFact() async {
        let operation = BlockOperation {}
        #expect(await OperationQueue().runs(operation))
        #expect(await queueLearnsFinished(operation))
    }

    #if os(macOS) || os(Linux)
        /// An operation added behind a pending barrier block depends on that barrier, which
        /// holds it unretained; on Linux `dependencies` does not list the barrier. The keeper
        /// waits in the operation's own queue, which orders it after the barrier.
        @Test("a cancelled await of an operation added behind a pending barrier block: no crash when the barrier ends")
        func cancelledAwaitBehindABarrier() async {
            await #expect(processExitsWith: .success) {
                startWatchdog(seconds: 60)
                for _ in 0..<10 {
                    let queue = OperationQueue()
                    let running = Flag()
                    let mayFinish = DispatchSemaphore(value: 0)
                    queue.addOperation {
                        running.raise()
                        _ = mayFinish.wait(timeout: .now() + 10)  // a queue's thread, not the pool's
                    }
                    _ = await running.wait()
                    queue.addBarrierBlock {}
                    let awaiting = Task { await queue.run(BlockOperation {}) }
                    // Cancelled only once the operation is in the queue: on Linux, adding an
                    // operation that is already cancelled behind a pending barrier deadlocks
                    // Foundation (the queue takes its own lock twice).
                    while queue.operationCount < 2 { await Task.yield() }
                    awaiting.cancel()
                    await awaiting.value
                    try? await Task.sleep(nanoseconds: 20_000_000)  // time to free the operation
                    mayFinish.signal()
                    _ = await drained(queue)
                }
            }
        }

        /// Foundation holds dependents unretained, and a cancelled operation finishes at once,
        /// whatever its dependencies. Before the fix, `run` returned, the cancelled dependent
        /// was freed, and its dependency crashed the process when it finished (SIGSEGV on
        /// Linux): an exit test, so that a regression fails this test instead of the run.
        @Test("cancelling the task that awaits run(dependent) while the dependency runs: no crash, nothing leaks")
        func cancelledAwaitWhileADependencyRuns() async {
            await #expect(processExitsWith: .success) {
                for _ in 0..<10 {
                    let outcome = await CancelledAwait.run()
                    // Checked only now, after the dependency finished: without the fix, the
                    // dependency's finish crashes first.
                    precondition(outcome.keptWhileTheDependencyRan, "the dependent was freed while its dependency ran")
                    precondition(outcome.freedAfterwards, "the dependent was never freed")
                }
            }
        }
    #endif
}

/// The scenario of `cancelledAwaitWhileADependencyRuns`, with plain `BlockOperation`s.
enum CancelledAwait {
    struct Outcome {
        let keptWhileTheDependencyRan: Bool
        let freedAfterwards: Bool
    }

    private struct Weak {
        weak var operation: Operation?
    }

    static func run() async -> Outcome {
        let queue = OperationQueue()
        let dependencyRuns = Flag()
        let dependencyMayFinish = DispatchSemaphore(value: 0)
        let dependency = BlockOperation {
            dependencyRuns.raise()
            _ = dependencyMayFinish.wait(timeout: .now() + 10)  // a queue's thread, not the pool's
        }
        queue.addOperation(dependency)
        let dependent = Locked(Weak())
        let awaiting = Task {
            // Made here, so that only the awaiting task, the queue and Foundation hold it.
            let operation = BlockOperation {}
            operation.addDependency(dependency)
            dependent.withLock { $0.operation = operation }
            await queue.run(operation)
        }
        _ = await dependencyRuns.wait()
        awaiting.cancel()  // cancels the dependent: it is ready, and finishes, at once
        await awaiting.value
        // A program would drop the operation now. Without the fix it was freed within a
        // millisecond or so; with it, it stays until its dependency finished.
        let freedEarly = await eventually(within: 0.05) { dependent.withLock { $0.operation == nil } }
        dependencyMayFinish.signal()
        _ = await drained(queue)
        let freed = await eventually(within: 5) { dependent.withLock { $0.operation == nil } }
        return Outcome(keptWhileTheDependencyRan: !freedEarly, freedAfterwards: freed)
    }

    /// True as soon as `condition` holds, false if it still does not after `seconds`.
    private static func eventually(within seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = DispatchTime.now() + seconds
        while !condition() {
            guard DispatchTime.now() < deadline else { return false }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        return true
    }
}
