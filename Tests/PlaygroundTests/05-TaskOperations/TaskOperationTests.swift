import AsyncOperations
import Foundation
import ManualState
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
        let popular = AsyncAwaitPost.AsyncOperationWithTask { () async -> Bool in #isolation === MainActor.shared }
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
        let operation = AsyncAwaitPost.AsyncOperationWithTask { @Sendable () async -> String in
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
        #expect(await taskSawCancel.staysLowered(for: 0.2), "the article's task should not see the cancellation")
        mayReturn.raise()
        #expect(await queueLearnsFinished(operation))
        #expect(try operation.getResult()?.get() == "ran to its end")
    }
}

extension Optional {
    /// True for a failed result with `CancellationError`.
    func isCancellationError<Success>() -> Bool where Wrapped == Result<Success, any Error> {
        if case .failure(let error)? = self { return error is CancellationError }
        return false
    }
}

extension Result where Failure == any Error {
    /// True for a failure with `CancellationError`.
    var isCancellationError: Bool {
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
