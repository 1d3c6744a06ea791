import Dispatch
import Exercise4
import Foundation
import TestSupport
import Testing

@Suite("Exercise 4 — an operation that finishes when its callback is called")
struct Exercise4Tests {
    @Test("on a serial queue: first sync, first async, second sync, second async")
    func serialOrder() async {
        let log = EventLog()
        let firstSync = Flag()
        let secondSync = Flag()
        let held = HeldQueue("exercise4-first-callback")  // the first callback waits until released
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let operations = [("First", firstSync, held.queue), ("Second", secondSync, DispatchQueue.global())].map {
            name, started, callbackQueue in
            CallbackOperation { complete in
                log.record("\(name) sync operation complete")
                started.raise()
                callbackQueue.async {
                    log.record("\(name) async operation complete")
                    complete()
                }
            }
        }
        queue.add(operations)
        #expect(await firstSync.wait(seconds: 5), "the first operation's work never ran")
        // While the first callback is held, the second operation must not start: give it a
        // bounded moment to show whether it (wrongly) does, then let the callback run.
        let secondStartedEarly = await secondSync.wait(seconds: 0.5)
        held.release()
        let bothFinished = await completes(within: 5) { await operations[1].untilFinished() }
        #expect(
            !secondStartedEarly,
            """
            the second operation started before the first one's callback was called: the operation finished too \
            early. finish() belongs in the callback, and nowhere else (hint: "The callback finishes")
            """)
        #expect(
            bothFinished,
            "the operations never finished: does main() give the work a callback that calls finish()? (hint: \"The callback finishes\")"
        )
        if bothFinished && !secondStartedEarly {
            #expect(
                log.events == [
                    "First sync operation complete", "First async operation complete",
                    "Second sync operation complete", "Second async operation complete",
                ],
                "the second operation must start only after the first one's callback")
        }
    }

    @Test("a callback called at once, and twice, finishes the operation once")
    func immediateAndTwice() async {
        let operation = CallbackOperation { complete in
            complete()
            complete()
        }
        OperationQueue().addOperation(operation)
        guard await queueLearnsFinished(operation, within: 5) else {
            Issue.record(
                "the operation never finished: does main() give the work a callback that calls finish()? (hint: \"The callback finishes\")"
            )
            return
        }
        let state = await read { (finished: operation.isFinished, executing: operation.isExecuting) }
        #expect(state?.finished == true && state?.executing == false, "finished once: finished, not executing")
    }

    @Test("the operation finishes while the main thread is busy: the callback needs no main queue")
    func finishesWithoutTheMainQueue() async {
        let operation = CallbackOperation { complete in DispatchQueue.global().async { complete() } }
        let queue = OperationQueue()
        // Runs on the main actor, that is on the main queue, and keeps it busy until the
        // operation has finished (or 3 s have passed): anything the callback sends to the main
        // queue waits meanwhile — as in a command-line program whose main thread waits in
        // waitUntilFinished(), or never runs the main queue at all.
        let finishedMeanwhile = await MainActor.run { () -> Bool in
            let finished = DispatchSemaphore(value: 0)
            let observer = BlockOperation { finished.signal() }
            observer.addDependency(operation)
            queue.add([operation, observer])
            return finished.wait(timeout: .now() + 3) == .success
        }
        #expect(
            finishedMeanwhile,
            """
            the operation did not finish while the main thread was busy: the callback finishes it through the main \
            queue (DispatchQueue.main, @MainActor, OperationQueue.main), which a command-line program that waits never \
            runs. Call finish() right where the callback runs (hint: "Any thread will do")
            """)
        // Once the main queue is free, a callback that went through it finishes at once.
        #expect(await drained(queue, within: 2), "the operation never finished, even once the main queue was free")
    }
}
