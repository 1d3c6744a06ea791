import AsyncOperations
import Exercise5
import Foundation
import TestSupport
import Testing

@Suite("Exercise 5 — cancel() reaches the running task")
struct Exercise5Tests {
    @Test("cancelling a running operation ends its task's one-minute sleep at once")
    func cancelReachesTheTask() async {
        let started = Flag()
        let sleepInterrupted = Flag()
        let operation = AsyncWorkOperation { () async throws -> String in
            started.raise()
            do {
                try await Task.sleep(nanoseconds: 60 * 1_000_000_000)  // ends early only if cancelled
            } catch {
                sleepInterrupted.raise()
                throw error
            }
            return "slept a minute"
        }
        OperationQueue().addOperation(operation)
        #expect(await started.wait(seconds: 5), "the operation's work never started")
        #expect(
            await blockingCall(within: 5) { operation.cancel() },
            "cancel() never returned: does it wait for the task to end? It only asks it to stop (hint: \"Only the task finishes\")"
        )
        #expect(
            operation.isCancelled,
            """
            isCancelled was false after cancel() returned: cancel() must call super.cancel() — first, before it cancels \
            the task, or the task may end the operation before it is marked cancelled (hint: "Forward the cancel")
            """)
        guard await sleepInterrupted.wait(seconds: 5) else {
            if await read({ operation.isFinished }) == true {
                Issue.record(
                    """
                    cancel() finished the operation while its task went on sleeping: only the task's end finishes \
                    it (main() does that); cancel() must call cancel() on the task that main() stored \
                    (hint: "Only the task finishes")
                    """)
            } else {
                Issue.record(
                    """
                    the task went on sleeping after cancel(): cancel() must call cancel() on the task that main() \
                    stored (hint: "Forward the cancel")
                    """)
            }
            return
        }
        let finished = await queueLearnsFinished(operation, within: 5)
        #expect(
            finished,
            "the task was cancelled, but the operation never finished: main()'s task calls finish() (hint: \"Only the task finishes\")"
        )
        if finished {
            switch operation.result {
            case .failure(let error)? where error is CancellationError:
                break
            case nil:
                Issue.record(
                    """
                    the operation finished without a result: only the task's end may finish it (main() does that); \
                    cancel() just cancels the task (hint: "Only the task finishes")
                    """)
            case let other?:
                Issue.record(
                    "a cancelled sleep throws CancellationError, which is the result; got \(other) (hint: \"Only the task finishes\")"
                )
            }
        }
    }

    @Test("cancelled, it stays executing until its task has ended: the task may still be cleaning up")
    func finishesWhenTheTaskEnds() async {
        let started = Flag()
        let cleaningUp = Flag()
        let cleanUpMayEnd = Flag()
        let operation = AsyncWorkOperation { () async throws -> String in
            started.raise()
            do {
                try await Task.sleep(nanoseconds: 60 * 1_000_000_000)  // ends early only if cancelled
            } catch {
                cleaningUp.raise()
                _ = await cleanUpMayEnd.wait(seconds: 5)  // the work is not over until this returns
                throw error
            }
            return "slept a minute"
        }
        let finished = finishedFlag(operation)
        OperationQueue().addOperation(operation)
        guard await started.wait(seconds: 5) else {
            Issue.record("the operation's work never started")
            return
        }
        guard await blockingCall(within: 5, { operation.cancel() }) else {
            cleanUpMayEnd.raise()
            Issue.record(
                """
                cancel() never returned while the task was still cleaning up: it waits for the task to end (or for a \
                lock the task holds). cancel() only asks the task to stop; the task's end finishes the operation \
                (hint: "Only the task finishes")
                """)
            return
        }
        guard await cleaningUp.wait(seconds: 5) else {
            cleanUpMayEnd.raise()
            Issue.record(
                "the task went on sleeping after cancel(): cancel() must call cancel() on the task that main() stored (hint: \"Forward the cancel\")"
            )
            return
        }
        // The operation may not finish while its task runs: look for a moment.
        let finishedEarly = await finished.wait(seconds: 0.3)
        cleanUpMayEnd.raise()
        #expect(
            !finishedEarly,
            """
            the operation finished while its task was still running (cleaning up after the cancel): whoever waits for \
            it, or depends on it, goes on too early. Only the task's end finishes it; cancel() just cancels the task \
            (hint: "Only the task finishes")
            """)
        #expect(
            await finished.wait(seconds: 5),
            "the task ended, but the operation never finished: main()'s task calls finish() (hint: \"Only the task finishes\")"
        )
        if case .failure(let error)? = operation.result, error is CancellationError {
        } else {
            Issue.record(
                "a cancelled task's result is its CancellationError; got \(String(describing: operation.result)) (hint: \"Only the task finishes\")"
            )
        }
    }

    @Test("an operation that is not cancelled returns its value")
    func value() async throws {
        let operation = AsyncWorkOperation { 6 * 7 }
        #expect(
            await OperationQueue().runs(operation, within: 5),
            "the operation never finished: main()'s task stores the outcome and calls finish() (hint: \"Only the task finishes\")"
        )
        let value = try? operation.result?.get()
        #expect(value == 42, "the result is the work's value, 42 (hint: \"Only the task finishes\")")
    }

    @Test("when its task hears of the cancel, the operation already says it is cancelled")
    func cancelledBeforeTheTaskHears() async {
        // A cancellation handler inside the work runs the moment the task is cancelled, on the
        // thread that cancels it: from inside cancel(). The operation must be marked cancelled
        // by then, or the task may end — and the operation finish — before it is.
        let watched = WeakOperation()
        let started = Flag()
        let heard = Locked<Bool?>(nil)
        let operation = AsyncWorkOperation { () async throws -> String in
            try await withTaskCancellationHandler {
                started.raise()
                try await Task.sleep(nanoseconds: 60 * 1_000_000_000)
                return "slept a minute"
            } onCancel: {
                let cancelled = watched.operation?.isCancelled ?? false
                heard.withLock { if $0 == nil { $0 = cancelled } }
            }
        }
        watched.operation = operation
        OperationQueue().addOperation(operation)
        guard await started.wait(seconds: 5) else {
            Issue.record("the operation's work never started (hint: \"Forward the cancel\")")
            return
        }
        guard await blockingCall(within: 5, { operation.cancel() }) else {
            Issue.record("cancel() never returned (hint: \"Only the task finishes\")")
            return
        }
        // A task that hears of it later (or never: cancelReachesTheTask says so) is looked at too.
        _ = await queueLearnsFinished(operation, within: 5)
        #expect(
            heard.withLock { $0 } != false,
            """
            the task heard of the cancel while the operation did not say it was cancelled yet: cancel() cancels the \
            task before calling super.cancel(). The task may then end — and the operation finish — before it is \
            marked cancelled: it ends as if it had not been. Call super.cancel() first (hint: "Forward the cancel")
            """)
    }

    @Test("an operation that has finished is freed: nothing it started goes on holding it")
    func freedOnceFinished() async {
        weak var gone: AsyncWorkOperation<Int>?
        do {
            let operation = AsyncWorkOperation { 6 * 7 }
            gone = operation
            #expect(
                await OperationQueue().runs(operation, within: 5),
                "the operation never finished (hint: \"Only the task finishes\")")
        }
        let deadline = ContinuousClock.now + .seconds(3 * boundStretch)  // the queue lets go on its own thread
        while gone != nil && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        #expect(
            gone == nil,
            """
            the operation finished, but it was never freed: something it started still holds it. A task that \
            watches isCancelled in a loop runs — and holds the operation — for ever once it is not cancelled. \
            Forward the cancel from cancel() instead of watching for it (hint: "Forward the cancel")
            """)
    }
}

/// A weak reference to an operation, for a closure that the operation itself holds.
private final class WeakOperation: @unchecked Sendable {
    // @unchecked Sendable: `operation` is set once, before the operation is queued.
    weak var operation: AsyncWorkOperation<String>?
}
