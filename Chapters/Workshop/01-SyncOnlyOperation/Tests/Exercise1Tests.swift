import Dispatch
import Exercise1
import Foundation
import TestSupport
import Testing

@Suite("Exercise 1 — a synchronous operation that waits for its work")
struct Exercise1Tests {
    @Test("the queue reports the operation finished only after its work has run")
    func finishesAfterItsWork() async {
        let log = EventLog()
        let workQueue = HeldQueue("exercise1-work")  // the work waits until released
        let operation = WaitingOperation(on: workQueue.queue) { log.record("work ran") }
        let completionRan = Flag()
        operation.completionBlock = {
            log.record("operation finished")
            completionRan.raise()
        }
        OperationQueue().addOperation(operation)

        // While the work is held, a correct operation cannot finish: give the queue a bounded
        // moment to show whether it (wrongly) does, then let the work run.
        let finishedEarly = await queueLearnsFinished(operation, within: 1)
        workQueue.release()
        // Once the work has run, main() returns at once: a main() that sleeps guesses instead.
        let finished = await queueLearnsFinished(operation, within: 1.5)

        #expect(
            !finishedEarly,
            "the queue reported the operation finished while its work had not run yet: main() must not return before the work is done"
        )
        #expect(
            finished,
            "the operation did not finish once its work had run: main() must wait for the work's signal, then return (a sleep is a guess)"
        )
        #expect(await completionRan.wait(seconds: 2), "the operation's completion block never ran")
        #expect(log.events == ["work ran", "operation finished"], "the work must run before the operation finishes")
    }
}
