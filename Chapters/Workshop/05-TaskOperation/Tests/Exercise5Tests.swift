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
        operation.cancel()
        #expect(operation.isCancelled, "cancel() must still call super.cancel(): isCancelled stayed false")
        guard await sleepInterrupted.wait(seconds: 2) else {
            if await read({ operation.isFinished }) == true {
                Issue.record(
                    """
                    cancel() finished the operation while its task went on sleeping: only the task's end finishes \
                    it (main() does that); cancel() must call cancel() on the task that main() stored.
                    """)
            } else {
                Issue.record(
                    "the task went on sleeping after cancel(): cancel() must call cancel() on the task that main() stored"
                )
            }
            return
        }
        let finished = await queueLearnsFinished(operation, within: 2)
        #expect(finished, "the task was cancelled, but the operation never finished: main()'s task calls finish()")
        if finished {
            switch operation.result {
            case .failure(let error)? where error is CancellationError:
                break
            case nil:
                Issue.record(
                    """
                    the operation finished without a result: only the task's end may finish it (main() does that); \
                    cancel() just cancels the task.
                    """)
            case let other?:
                Issue.record("a cancelled sleep throws CancellationError, which is the result; got \(other)")
            }
        }
    }

    @Test("an operation that is not cancelled returns its value")
    func value() async throws {
        let operation = AsyncWorkOperation { 6 * 7 }
        #expect(await OperationQueue().runs(operation, within: 2), "the operation never finished")
        #expect(try operation.result?.get() == 42)
    }
}
