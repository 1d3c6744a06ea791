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
        #expect(await blockingCall(within: 5) { operation.cancel() }, "cancel() never returned")
        #expect(
            operation.isCancelled,
            "cancel() must still call super.cancel(): isCancelled stayed false (hint: \"Forward the cancel\")")
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
        #expect(finished, "the task was cancelled, but the operation never finished: main()'s task calls finish()")
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
                Issue.record("a cancelled sleep throws CancellationError, which is the result; got \(other)")
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
        _ = await blockingCall(within: 5) { operation.cancel() }
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
        #expect(await finished.wait(seconds: 5), "the task ended, but the operation never finished")
        if case .failure(let error)? = operation.result, error is CancellationError {
        } else {
            Issue.record(
                "a cancelled task's result is its CancellationError; got \(String(describing: operation.result))")
        }
    }

    @Test("an operation that is not cancelled returns its value")
    func value() async throws {
        let operation = AsyncWorkOperation { 6 * 7 }
        #expect(await OperationQueue().runs(operation, within: 5), "the operation never finished")
        #expect(try operation.result?.get() == 42)
    }
}
