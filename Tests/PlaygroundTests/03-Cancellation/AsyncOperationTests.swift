import AsyncOperations
import Foundation
import TestSupport
import Testing

/// An AsyncOperation whose work is a closure the test controls.
final class ProbeOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only `let` properties to a thread-safe superclass.
    private let mainRuns = Counter()
    private let hookCalls = Locked<[Bool]>([])
    private let work: @Sendable (ProbeOperation) -> Void

    /// - Parameter work: runs in `main()`; it must make sure `finish()` is called.
    init(work: @escaping @Sendable (ProbeOperation) -> Void = { $0.finish() }) {
        self.work = work
    }

    var mainRunCount: Int { mainRuns.value }

    /// One entry per `cancelledBeforeStart()` call: whether the operation was already finished.
    var cancelledBeforeStartCalls: [Bool] { hookCalls.withLock { $0 } }

    override func cancelledBeforeStart() {
        let finished = isFinished
        hookCalls.withLock { $0.append(finished) }
    }

    override func main() {
        mainRuns.increment()
        work(self)
    }
}

@Suite("Chapter 3 — the finished base operation, AsyncOperation")
struct AsyncOperationTests {
    @Test("cancelled before it starts: finished, never executing, main() never runs, cancelledBeforeStart() runs once")
    func cancelledBeforeStart() async {
        let operation = ProbeOperation()
        let completions = Counter(target: 1)
        operation.completionBlock = completions.increment
        operation.cancel()
        OperationQueue().addOperation(operation)

        #expect(await queueLearnsFinished(operation))
        #expect(operation.isFinished && !operation.isExecuting && operation.isCancelled)
        #expect(operation.mainRunCount == 0)
        #expect(operation.cancelledBeforeStartCalls == [false], "called once, before the operation finished")
        #expect(await completions.waitForTarget())
    }

    @Test("stays executing until finish(), then the queue learns it at once")
    func executingUntilFinish() async {
        let mainRan = Flag()
        let operation = ProbeOperation { _ in mainRan.raise() }  // does not finish by itself
        let dependent = BlockOperation {}
        dependent.addDependency(operation)
        OperationQueue().add([operation, dependent])

        #expect(await mainRan.wait())
        #expect(operation.isExecuting && !operation.isFinished && !dependent.isReady)
        operation.finish()
        #expect(await queueLearnsFinished(dependent))
        #expect(operation.isFinished && !operation.isExecuting)
        #expect(operation.cancelledBeforeStartCalls == [])
    }

    /// The observable contract. On Linux, Foundation itself also ignores a second "isFinished"
    /// for an operation it already finished, so an unguarded `finish()` would pass this test;
    /// `misuseIsHarmless` is the one that fails then (checked by dropping the `state == .executing`
    /// guard of `finish()`).
    @Test("finish() twice, from two threads, finishes once: one completion block")
    func finishesOnce() async {
        let finishCalls = Counter(target: 2)
        let firstCompletion = Counter(target: 1)
        let secondCompletion = Counter(target: 2)  // reaching 2 would be the bug
        let operation = ProbeOperation { operation in
            for _ in 0..<2 {
                DispatchQueue.global().async {
                    operation.finish()
                    finishCalls.increment()
                }
            }
        }
        operation.completionBlock = {
            firstCompletion.increment()
            secondCompletion.increment()
        }
        OperationQueue().addOperation(operation)

        #expect(await finishCalls.waitForTarget(), "both finish() calls returned")
        #expect(await firstCompletion.waitForTarget())
        // Foundation dispatches a completion block during the finish() that posted "isFinished",
        // so a second one would already be queued now; give it a bounded moment to show up.
        #expect(await secondCompletion.staysBelowTarget(for: 0.2), "the completion block ran twice")
        #expect(operation.isFinished && !operation.isExecuting)
    }

    /// (A second start() while the operation runs traps, as Foundation's does:
    /// `HandStartTests.secondStartWhileRunningTraps`.)
    @Test("finish() before start() is ignored, and a start() after the finish does not run main() again")
    func misuseIsHarmless() async {
        let operation = ProbeOperation { _ in }  // does not finish by itself
        operation.finish()
        #expect(!operation.isFinished, "a pending operation must not become finished")
        operation.start()
        #expect(operation.mainRunCount == 1 && operation.isExecuting)
        operation.finish()
        operation.start()
        #expect(operation.mainRunCount == 1)
        #expect(operation.isFinished && !operation.isExecuting)
    }

    @Test("finish() once start() began but before main(): the operation finishes, main() never runs")
    func finishWhileStarting() async {
        let operation = FinishesWhileStarting()
        operation.start()
        #expect(operation.isFinished && !operation.isExecuting)
        #expect(operation.mainRuns.value == 0, "main() started work for an operation that had finished")
        #expect(await queueLearnsFinished(operation))
    }

    @Test("cancel() of an executing operation does not finish it: its work decides")
    func cancelWhileExecuting() async {
        let mainRan = Flag()
        let operation = ProbeOperation { _ in mainRan.raise() }
        OperationQueue().addOperation(operation)
        #expect(await mainRan.wait())
        operation.cancel()
        #expect(operation.isCancelled && operation.isExecuting && !operation.isFinished)
        operation.finish()  // the work noticed the cancellation and stopped
        #expect(await queueLearnsFinished(operation))
    }

    @Test("1,000 operations, cancelled at random moments on a wide queue, all finish exactly once")
    func cancellationRaces() async {
        let count = 1_000
        let completions = Counter(target: count)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 8
        let operations = (0..<count).map { index in
            let operation = ProbeOperation { operation in
                DispatchQueue.global().async { operation.finish() }
            }
            operation.completionBlock = completions.increment
            if index % 3 == 0 { operation.cancel() }  // before it is even queued
            return operation
        }
        queue.add(operations)
        for operation in operations.shuffled().prefix(count / 2) {
            operation.cancel()  // pending, executing or finished by now: any of them
        }
        #expect(await drained(queue))
        #expect(await completions.waitForTarget())
        #expect(completions.value == count)
        #expect(operations.allSatisfy { $0.isFinished && !$0.isExecuting })
        #expect(operations.allSatisfy { $0.mainRunCount <= 1 })
        #expect(operations.enumerated().allSatisfy { $0.offset % 3 != 0 || $0.element.mainRunCount == 0 })
    }
}

/// Calls `finish()` from inside `start()`, after `start()` claimed the run and before it stored
/// "executing": `start()` reads `isReady` there (to tell a start before the dependencies
/// finished), and this override finishes on that read — the window in which another thread's
/// `finish()` can land.
private final class FinishesWhileStarting: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only thread-safe values to a thread-safe superclass.
    let mainRuns = Counter()
    private let armed = Locked(false)

    override func start() {
        armed.withLock { $0 = true }
        super.start()
    }

    override var isReady: Bool {
        let finishNow = armed.withLock { armed in
            defer { armed = false }
            return armed
        }
        if finishNow { finish() }
        return super.isReady
    }

    override func main() { mainRuns.increment() }
}
