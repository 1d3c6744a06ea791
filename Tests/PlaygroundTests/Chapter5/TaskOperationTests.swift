import AsyncOperations
import Foundation
import TaskOperations
import TestSupport
import Testing

// These tests await value(of:) itself, which has no deadline of its own: the suite's time
// limit (Swift Testing's smallest is a minute) fails a test that would otherwise hang.
@Suite("Chapter 5 — TaskOperation", .timeLimit(.minutes(1)))
struct TaskOperationTests {
    @Test("the closure's return value is the result: Executing, then Finished, then Hello World!")
    func helloWorld() async throws {
        let log = EventLog()
        let operation = TaskOperation {
            log.record("Executing")
            return "Hello World!"
        }
        let value = try await OperationQueue().value(of: operation)
        log.record("Finished")
        log.record(value)
        #expect(log.events == ["Executing", "Finished", "Hello World!"])
        #expect(try operation.value == "Hello World!")
    }

    @Test("a thrown error is the result, and value(of:) rethrows it")
    func thrownError() async {
        struct Failed: Error, Equatable {}
        let operation = TaskOperation<Int> { throw Failed() }
        await #expect(throws: Failed.self) { try await OperationQueue().value(of: operation) }
        #expect(throws: Failed.self) { try operation.value }
    }

    @Test("a closure that neither throws nor awaits fits the same initialiser")
    func plainClosure() async throws {
        let operation = TaskOperation { 6 * 7 }
        #expect(try await OperationQueue().value(of: operation) == 42)
    }

    @Test("cancel() reaches the running task: its sleep ends, and the result is CancellationError")
    func cancelReachesTheTask() async {
        let started = Flag()
        let operation = TaskOperation { () async throws -> String in
            started.raise()
            try await Task.sleep(nanoseconds: 60 * 1_000_000_000)  // ends early only if cancelled
            return "slept a minute"
        }
        OperationQueue().addOperation(operation)
        #expect(await started.wait())
        operation.cancel()
        #expect(await queueLearnsFinished(operation, within: 30), "the cancelled task should end at once")
        #expect(operation.result.isCancellationError())
    }

    @Test("a cancelled operation's result is CancellationError, even if its closure ignored the cancellation")
    func cancelledIgnoringClosure() async {
        let started = Flag()
        let mayReturn = Flag()
        let operation = TaskOperation {
            started.raise()
            _ = await mayReturn.wait()  // does not look at Task.isCancelled
            return "done anyway"
        }
        OperationQueue().addOperation(operation)
        #expect(await started.wait())
        operation.cancel()
        mayReturn.raise()
        #expect(await queueLearnsFinished(operation))
        #expect(operation.result.isCancellationError())
    }

    @Test("cancelled before it starts: the closure never runs, and the result is CancellationError")
    func cancelledBeforeStart() async {
        let closureRan = Flag()
        let operation = TaskOperation { closureRan.raise() }
        operation.cancel()
        #expect(await OperationQueue().runs(operation))
        #expect(!closureRan.isRaised)
        #expect(operation.result.isCancellationError())
    }

    /// `ResultProducing` promises "nil before" finished. Before the fix the result was recorded
    /// in `willFinish()`, just before "finished" was stored, and `result` returned it at once: a
    /// reader that raced the finish saw a result beside `isFinished == false` (10 of 10 runs on the
    /// old code, 7 to 103 such reads in 200 finishes; that racing test is in the history of this
    /// file). Here a subclass reads it at that very moment, right after the result is recorded.
    @Test("result is nil until isFinished is true, also while the operation is finishing", arguments: [false, true])
    func resultNilBeforeFinished(cancelled: Bool) async {
        let operation = WatchedTaskOperation { 7 }
        if cancelled { operation.cancel() }
        #expect(await OperationQueue().runs(operation))
        #expect(operation.whileFinishing?.finished == false)
        #expect(operation.whileFinishing?.hasResult == false, "a result while isFinished was still false")
        #expect(operation.result != nil)
    }

    /// Whoever learns "finished" finds the result: a subclass reads it at the first `isFinished`
    /// that answers true (Linux's Foundation reads it inside `didChangeValue(forKey:)`, a Mac's
    /// observers once it is announced), on each path to finished. Fails if the result is recorded
    /// only after "finished" was announced.
    @Test(
        "the result is there when the queue learns finished: run, cancelled before it starts, cancelled while it runs",
        arguments: ["runs", "cancelled before it starts", "cancelled while it runs"])
    func resultWhenTheQueueLearnsFinished(path: String) async {
        let started = Flag()
        let operation = WatchedTaskOperation { () async throws -> Int in
            started.raise()
            if path == "cancelled while it runs" { try await Task.sleep(nanoseconds: 60 * 1_000_000_000) }
            return 7
        }
        if path == "cancelled before it starts" { operation.cancel() }
        OperationQueue().addOperation(operation)
        if path == "cancelled while it runs" {
            #expect(await started.wait())
            operation.cancel()
        }
        #expect(await queueLearnsFinished(operation, within: 30))
        switch operation.resultWhenFinished {
        case .success(let value)?: #expect(path == "runs" && value == 7)
        case .failure(let error)?: #expect(path != "runs" && error is CancellationError)
        case nil: Issue.record("no result yet when the queue learned that the operation finished")
        }
    }

    @Test("the closure is @Sendable: written on the main actor, it does not run on the main actor")
    @MainActor
    func closureLeavesTheMainActor() async throws {
        // The article's plain closure keeps the main actor of the code that wrote it — the
        // cause of the deadlock that chapter 5 shows when the main thread blocks.
        // (`#isolation` is the actor a piece of code runs on; nil means no actor.)
        let popular = PopularTaskOperation { () async -> Bool in #isolation === MainActor.shared }
        #expect(await OperationQueue().runs(popular))
        #expect(try popular.getResult()?.get() == true, "the article's closure should run on the main actor")

        let fixed = TaskOperation { () async -> Bool in #isolation === MainActor.shared }
        #expect(try await OperationQueue().value(of: fixed) == false)
    }

    @Test("what @Sendable does not prevent: a closure that asks for the main actor runs there")
    @MainActor
    func mainActorClosureKeepsTheMainActor() async throws {
        // Needs the main thread as much as the article's closure: blocking that thread while
        // waiting for it deadlocks the same way (the chapter's second section, bounded).
        let operation = TaskOperation { @MainActor () -> Bool in #isolation === MainActor.shared }
        #expect(try await OperationQueue().value(of: operation) == true)
    }

    @Test("the article's operation: cancel() does not reach its task, which runs to its end and succeeds")
    func popularCancelMissesTheTask() async throws {
        let started = Flag()
        let taskSawCancel = Flag()
        let mayReturn = Flag()
        let operation = PopularTaskOperation { @Sendable () async -> String in
            started.raise()
            await withTaskCancellationHandler {
                _ = await mayReturn.wait()
            } onCancel: {
                taskSawCancel.raise()
            }
            return "ran to its end"
        }
        OperationQueue().addOperation(operation)
        #expect(await started.wait())
        operation.cancel()
        #expect(await !taskSawCancel.wait(seconds: 0.2), "the article's task should not see the cancellation")
        mayReturn.raise()
        #expect(await queueLearnsFinished(operation))
        #expect(try operation.getResult()?.get() == "ran to its end")
    }
}

@Suite("Chapter 5 — awaiting operations from async code", .timeLimit(.minutes(1)))
struct AwaitingOperationsTests {
    @Test("run(_:) returns only once every operation has finished, however the queue orders them")
    func runAwaitsAll() async {
        let log = EventLog()
        let queue = OperationQueue()
        let last = BlockOperation { log.record("last") }
        let first = TaskOperation { log.record("first") }
        last.addDependency(first)
        #expect(await queue.runs([last, first]))
        #expect(log.events == ["first", "last"])
        #expect(first.isFinished && last.isFinished)
    }

    @Test("untilFinished() waits for a queue that is suspended, and returns once it runs")
    func untilFinishedFollowsTheQueue() async throws {
        let queue = OperationQueue()
        queue.isSuspended = true
        let operation = TaskOperation { "ran" }
        queue.addOperation(operation)
        #expect(await !completes(within: 0.1) { await operation.untilFinished() })
        queue.isSuspended = false
        #expect(await completes { await operation.untilFinished() })
        #expect(try operation.value == "ran")
    }

    @Test("cancelling the awaiting task cancels the operation, whose result is CancellationError")
    func cancellingTheAwaitingTask() async {
        let started = Flag()
        let operation = TaskOperation { () async throws -> String in
            started.raise()
            try await Task.sleep(nanoseconds: 60 * 1_000_000_000)
            return "slept a minute"
        }
        let queue = OperationQueue()
        let awaiting = Task { try await queue.value(of: operation) }
        #expect(await started.wait())
        awaiting.cancel()
        let outcome = await awaiting.result
        #expect(outcome.isCancellationError)
        #expect(operation.isCancelled && operation.isFinished)
    }

    @Test("untilFinished() only watches: cancelling the watching task leaves the operation running")
    func watchingTaskCancelled() async throws {
        let started = Flag()
        let mayFinish = Flag()
        let operation = TaskOperation { () async -> String in
            started.raise()
            _ = await mayFinish.wait()
            return "finished for its owner"
        }
        let queue = OperationQueue()
        queue.addOperation(operation)
        let watching = Task { await operation.untilFinished() }
        #expect(await started.wait())
        watching.cancel()
        // Like awaiting Task.value: the watcher goes on waiting, and the operation is not cancelled.
        #expect(await !completes(within: 0.1) { await watching.value })
        #expect(!operation.isCancelled && operation.isExecuting)
        mayFinish.raise()
        #expect(await completes { await watching.value })
        #expect(try operation.value == "finished for its owner")
    }

    @Test("an awaiting task cancelled before it adds the operation: the operation never runs its closure")
    func cancelledAwaitingTask() async {
        let closureRan = Flag()
        let operation = TaskOperation { closureRan.raise() }
        let mayAwait = Flag()
        let queue = OperationQueue()
        let awaiting = Task {
            _ = await mayAwait.wait()
            try await queue.value(of: operation)
        }
        awaiting.cancel()
        mayAwait.raise()
        #expect(await awaiting.result.isCancellationError)
        #expect(!closureRan.isRaised && operation.isFinished)
    }

    #if os(macOS) || os(Linux)
        @Test("200 operations awaited at once on a 2-core machine: no thread is blocked, so none waits for another")
        func manyAwaitsAtOnce() async {
            // With blocking waits, 200 waiting tasks would need 200 threads; the cooperative
            // pool has one per core. Awaiting suspends instead, so this finishes at once. In a
            // child process with a watchdog thread: were the pool's threads all blocked, not
            // even a deadline of this test could fire.
            await #expect(processExitsWith: .success) {
                Thread {
                    Thread.sleep(forTimeInterval: 30)
                    exit(3)  // the awaits never finished
                }.start()
                let queue = OperationQueue()
                let sum = await withTaskGroup(of: Int.self) { group in
                    for index in 0..<200 {
                        group.addTask { (try? await queue.value(of: TaskOperation { index })) ?? -1 }
                    }
                    return await group.reduce(0, +)
                }
                if sum != (0..<200).reduce(0, +) { exit(4) }
            }
        }
    #endif
}

extension Optional {
    /// True for a failed result with `CancellationError`.
    fileprivate func isCancellationError<Success>() -> Bool where Wrapped == Result<Success, any Error> {
        if case .failure(let error)? = self { return error is CancellationError }
        return false
    }
}

extension Result where Failure == any Error {
    /// True for a failure with `CancellationError`.
    fileprivate var isCancellationError: Bool {
        if case .failure(let error) = self { return error is CancellationError }
        return false
    }
}

/// A `TaskOperation` that records its result at the moment its queue learns that it finished.
private final class WatchedTaskOperation<Success: Sendable>: TaskOperation<Success>, @unchecked Sendable {
    // @unchecked Sendable: adds only a Locked to a thread-safe superclass.
    private let recorded = Locked<(done: Bool, result: Result<Success, any Error>?)>((false, nil))

    /// What `isFinished` and `result` said in `willFinish()`, once the result was recorded.
    private let finishing = Locked<(finished: Bool, hasResult: Bool)?>(nil)

    /// The result when `isFinished` first answered true.
    var resultWhenFinished: Result<Success, any Error>? { recorded.withLock { $0.result } }

    var whileFinishing: (finished: Bool, hasResult: Bool)? { finishing.withLock { $0 } }

    override func willFinish() {
        super.willFinish()
        let seen = (finished: isFinished, hasResult: result != nil)
        finishing.withLock { $0 = seen }
    }

    override var isFinished: Bool {
        let finished = super.isFinished
        if finished && !recorded.withLock({ $0.done }) {
            let result = self.result
            recorded.withLock { recorded in
                if !recorded.done { recorded = (true, result) }
            }
        }
        return finished
    }
}
