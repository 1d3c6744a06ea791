import AsyncOperations
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
        #expect(
            await firstSync.wait(seconds: 5),
            "the first operation's work never ran: does main() still call work? (hint: \"The callback finishes\")")
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
                "the second operation must start only after the first one's callback (hint: \"The callback finishes\")")
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
        #expect(
            state?.finished == true && state?.executing == false,
            "finished once: finished, not executing (hint: \"The callback finishes\")")
    }

    @Test("main() returns while the work runs: the callback, not main(), ends the operation")
    func mainReturnsAtOnce() async {
        let callback = Locked<(@Sendable () -> Void)?>(nil)
        let operation = WatchedCallback { complete in callback.withLock { $0 = complete } }
        OperationQueue().addOperation(operation)
        // The callback is not called until the test has looked: main() has nothing to wait for.
        let returned = await operation.mainReturned.wait(seconds: 3)
        callback.withLock { $0 }?()
        #expect(
            returned,
            """
            main() had not returned while the work's callback was pending: it waits for the callback, holding one of \
            the queue's threads for the whole work — chapter 1's sync-only approach. Give the work a callback that \
            finishes the operation, and return (hint: "The callback finishes")
            """)
        #expect(
            await queueLearnsFinished(operation, within: 5),
            "the callback was called, but the operation never finished (hint: \"The callback finishes\")")
    }

    @Test(
        "cancelled just before main() runs, the operation still ends: the work runs and calls back, or main() finishes")
    func cancelledJustBeforeMain() async {
        // A cancel can land after start() has decided to run the operation: main() then runs
        // for a cancelled operation, and whatever it decides, the operation must end.
        let calledBack = Flag()
        let operation = WatchedCallback { complete in
            DispatchQueue.global().async {
                complete()
                calledBack.raise()
            }
        }
        operation.cancelsBeforeMain = true
        OperationQueue().addOperation(operation)
        let finished = await queueLearnsFinished(operation, within: 5)
        if !finished && calledBack.isRaised {
            Issue.record(
                """
                cancelled just before main() ran, the operation never finished, though its work called back: the \
                callback must finish the operation (hint: "The callback finishes")
                """)
        } else if !finished {
            Issue.record(
                """
                cancelled just before main() ran, the operation never finished, and its work never called back: \
                main() returned without finishing it (a guard on isCancelled that only returns). Let the work run \
                and its callback finish the operation — or, if main() gives up, finish() before returning \
                (hint: "The callback finishes")
                """)
        }
    }

    #if os(macOS) || os(Linux)
        @Test("a callback may come late, and twice: after the operation is gone, it changes nothing")
        func lateCallbackAfterTheOperationIsGone() async {
            // In a process of its own: a callback that reaches a freed operation crashes.
            let message = """
                the process crashed when the work called its callback again after the operation had finished and \
                been freed: the callback reached an operation that no longer exists ([unowned self]). Capture self \
                strongly (the work holds the callback only as long as it keeps it) or weakly (hint: "Any thread \
                will do")
                """
            await #expect(processExitsWith: .success, Comment(rawValue: message)) {
                Exercise4Tests.callBackLateThenExit()
            }
        }
    #endif

    /// Runs an operation whose work keeps its callback, calls it once (the operation finishes),
    /// lets the operation go, then calls the callback again; exits normally if nothing went
    /// wrong.
    static func callBackLateThenExit() -> Never {
        let kept = Locked<(@Sendable () -> Void)?>(nil)
        weak var gone: CallbackOperation?
        do {
            let finished = DispatchSemaphore(value: 0)
            let operation = CallbackOperation { complete in kept.withLock { $0 = complete } }
            gone = operation
            let observer = BlockOperation { finished.signal() }
            observer.addDependency(operation)
            OperationQueue().addOperation(operation)
            OperationQueue().addOperation(observer)
            let started = Date()
            while kept.withLock({ $0 }) == nil && Date().timeIntervalSince(started) < 5 { usleep(1_000) }
            kept.withLock { $0 }?()
            _ = finished.wait(timeout: .now() + 5)
        }
        // The queue lets go of the operation on its own thread: wait until it is gone, or for a
        // while (a callback that holds it strongly keeps it; that is fine).
        let deadline = Date(timeIntervalSinceNow: 2)
        while gone != nil && Date() < deadline { usleep(5_000) }
        kept.withLock { $0 }?()
        exit(EXIT_SUCCESS)
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
        // Once the main queue is free, a callback that went through it finishes at once.
        let finishedLater = finishedMeanwhile ? true : await drained(queue, within: 2)
        if !finishedLater {
            Issue.record(
                """
                the operation never finished, not even once the main thread was free: does main() give the work a \
                callback that calls finish()? (hint: "The callback finishes")
                """)
        } else if !finishedMeanwhile {
            Issue.record(
                """
                the operation did not finish while the main thread was busy: the callback finishes it through the \
                main queue (DispatchQueue.main, @MainActor, OperationQueue.main), which a command-line program that \
                waits never runs. Call finish() right where the callback runs (hint: "Any thread will do")
                """)
        }
    }
}

/// The exercise's operation, watched: it says when its `main()` has returned, and may be
/// cancelled just before `main()` runs, after `start()` decided to run it.
private final class WatchedCallback: CallbackOperation, @unchecked Sendable {
    // @unchecked Sendable: a thread-safe flag, and a setting made before the operation is queued.
    let mainReturned = Flag()
    var cancelsBeforeMain = false

    override func main() {
        if cancelsBeforeMain { cancel() }
        super.main()
        mainReturned.raise()
    }
}
