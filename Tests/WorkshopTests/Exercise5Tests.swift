import Exercise5
import Foundation
import TestSupport
import Testing

@Suite("Exercise 5 — cancel() reaches the running task", .enabled(if: workshopIsRunning))
struct Exercise5Tests {
    @Test("cancelling a running operation ends its task's one-minute sleep at once")
    func cancelReachesTheTask() async {
        let started = Flag()
        let operation = AsyncWorkOperation { () async throws -> String in
            started.raise()
            try await Task.sleep(nanoseconds: 60 * 1_000_000_000)  // ends early only if cancelled
            return "slept a minute"
        }
        OperationQueue().addOperation(operation)
        #expect(await started.wait(seconds: 5), "the operation's work never started")
        operation.cancel()
        let finished = await queueLearnsFinished(operation, within: 3)
        #expect(
            finished,
            "the task went on sleeping after cancel(): cancel() must call cancel() on the task that main() stored")
        if finished {
            var isCancellationError = false
            if case .failure(let error)? = operation.result { isCancellationError = error is CancellationError }
            #expect(isCancellationError, "a cancelled sleep throws CancellationError: that is the result")
        }
    }

    @Test("an operation that is not cancelled returns its value")
    func value() async throws {
        let operation = AsyncWorkOperation { 6 * 7 }
        #expect(await OperationQueue().runs(operation))
        #expect(try operation.result?.get() == 42)
    }
}
