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
        defer { held.release() }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let operations = [("First", firstSync, held.queue), ("Second", secondSync, DispatchQueue.global())].map {
            name, started, callbackQueue in
            WatchedCallback { complete in
                log.record("\(name) sync operation complete")
                started.raise()
                callbackQueue.async {
                    log.record("\(name) async operation complete")
                    complete()
                }
            }
        }
        queue.add(operations)
        guard await operations[0].mainReturned.wait(seconds: 5) else {
            Issue.record(
                Comment(
                    rawValue: firstSync.isRaised
                        ? "the first operation's main() ran its work and had not returned 5 s later, its callback held: main() waits for the callback (hint: \"The callback finishes\")"
                        : "5 s after it was queued, the first operation's work had not run: does main() still call work? (hint: \"The callback finishes\")"
                ))
            return
        }
        // Its callback is held: the first operation must not end, nor the second start. At once,
        // then for a moment (a finish sent off with a delay lands within it, if it is short).
        // Read on a thread of its own, in case a wrong answer's getter waits for a stuck lock; a
        // getter that does not answer is said so, never taken for a finish.
        guard let finishedAtOnce = await read(within: 10, { operations[0].isFinished }) else {
            Issue.record(
                """
                the first operation's isFinished did not answer within 10 s after its main() returned, its callback \
                held: the getter waits for a lock that something holds (hint: "The callback finishes")
                """)
            return
        }
        let secondStartedEarly = finishedAtOnce ? secondSync.isRaised : !(await secondSync.staysLowered(for: 0.5))
        if finishedAtOnce || secondStartedEarly {
            Issue.record(
                """
                the first operation's callback was still held, and \(finishedAtOnce ? "the operation said isFinished = true as soon as main() had returned" : "the second operation started") \
                (ran: \(log.events)): the operation ended before its callback was called. The callback ends it, and \
                nothing else (hint: "The callback finishes")
                """)
            return
        }
        held.release()
        guard await completes(within: 5, { await operations[1].untilFinished() }) else {
            Issue.record(
                """
                5 s after the first operation's callback was let go, the second operation had not finished (ran: \
                \(log.events)): its callback must finish each operation (hint: "The callback finishes")
                """)
            return
        }
        #expect(
            log.events == [
                "First sync operation complete", "First async operation complete",
                "Second sync operation complete", "Second async operation complete",
            ],
            "the steps ran in this order: \(log.events); the second operation must start only after the first one's callback (hint: \"The callback finishes\")"
        )
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
                "its work called the callback twice, at once, inside main(), and 5 s later the queue had not learned that the operation finished (hint: \"The callback finishes\")"
            )
            return
        }
        let state = await read { (finished: operation.isFinished, executing: operation.isExecuting) }
        #expect(
            state?.finished == true && state?.executing == false,
            "its callback called twice at once, the operation said isFinished = \(String(describing: state?.finished)), isExecuting = \(String(describing: state?.executing)): finished, not executing (hint: \"The callback finishes\")"
        )
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
            "its work called the callback, and 5 s later the queue had not learned that the operation finished (hint: \"The callback finishes\")"
        )
    }

    @Test(
        "cancelled just before main() runs, the operation still ends: the work runs and calls back, or main() finishes")
    func cancelledJustBeforeMain() async {
        // A cancel can land after start() has decided to run the operation: main() then runs
        // for a cancelled operation, and whatever it decides, the operation must end.
        let calledBack = Flag()
        let workRan = Flag()
        let operation = WatchedCallback { complete in
            workRan.raise()
            DispatchQueue.global().async {
                calledBack.raise()
                complete()
            }
        }
        operation.cancelsBeforeMain = true
        OperationQueue().addOperation(operation)
        guard !(await queueLearnsFinished(operation, within: 5)) else { return }
        if calledBack.isRaised {
            Issue.record(
                """
                cancelled just before main() ran, the operation's work ran and called its callback, and 5 s later the \
                queue had not learned that the operation finished: the callback must finish the operation, cancelled \
                or not (hint: "The callback finishes")
                """)
        } else {
            Issue.record(
                Comment(
                    rawValue: """
                        cancelled just before main() ran, the operation \(workRan.isRaised ? "ran its work, which had not called back" : "never ran its work"), \
                        and 5 s later the queue had not learned that it finished\(operation.mainReturned.isRaised ? "; main() had returned" : ""): \
                        a main() that gives up on a cancelled operation must finish() before it returns \
                        (hint: "The callback finishes")
                        """))
        }
    }

    @Test("its callback called from two threads at the same moment finishes the operation once")
    func callbackFromTwoThreadsAtOnce() async {
        // Two threads let go together, with nothing of the test's between them: whatever the
        // callback touches, only the operation orders it. ThreadSanitizer, in the check's second
        // run, sees state of the callback's own that they touch unordered. Five operations: it
        // does not see every such pair.
        for _ in 1...5 {
            guard await Self.callBackFromTwoThreads() else { return }
        }
    }

    /// One operation whose callback two threads call at once; false, with the problem recorded,
    /// if it did not end finished.
    static func callBackFromTwoThreads() async -> Bool {
        let callback = CallbackBox()
        let operation = CallbackOperation { complete in callback.keep(complete) }
        OperationQueue().addOperation(operation)
        guard let complete = await callback.kept(within: 5) else {
            Issue.record(
                "5 s after it was queued, the operation had not run its work (hint: \"The callback finishes\")")
            return false
        }
        let go = DispatchSemaphore(value: 0)
        let returned = Counter(target: 2)
        for _ in 0..<2 {
            Thread {
                _ = go.wait(timeout: .now() + 5)
                complete()
                returned.increment()
            }.start()
        }
        go.signal()
        go.signal()
        guard await returned.waitForTarget(seconds: 5) else {
            Issue.record(
                "its callback, called from two threads at once, had not returned on both 5 s later: it waits for something (hint: \"Any thread will do\")"
            )
            return false
        }
        let finished = await queueLearnsFinished(operation, within: 5)
        let state = await read { (operation.isFinished, operation.isExecuting) }
        guard finished, state?.0 == true, state?.1 == false else {
            Issue.record(
                Comment(
                    rawValue: """
                        its callback, called from two threads at once, returned on both, and the operation then said \
                        \(state.map { "isFinished = \($0.0), isExecuting = \($0.1)" } ?? "nothing (its getters did not answer)")\
                        \(finished ? "" : ", its queue not knowing it finished"): one of the calls finishes it (hint: "Any thread will do")
                        """))
            return false
        }
        return true
    }

    @Test("an operation that has finished is freed: nothing it started goes on holding it")
    func freedOnceFinished() async {
        weak var gone: CallbackOperation?
        do {
            let operation = CallbackOperation { complete in DispatchQueue.global().async { complete() } }
            gone = operation
            guard await OperationQueue().runs(operation, within: 5) else {
                Issue.record(
                    "its work called back at once, and 5 s later the operation had not finished (hint: \"The callback finishes\")"
                )
                return
            }
        }
        let deadline = ContinuousClock.now + .seconds(3 * boundStretch)  // the queue lets go on its own thread
        while gone != nil && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        #expect(
            gone == nil,
            """
            the operation finished when its work called back, and 3 s later it had not been freed: something it \
            started still held it — a block waiting for its time, for instance. The callback ends the operation, \
            and nothing else does, later (hint: "The callback finishes")
            """)
    }

    #if os(macOS) || os(Linux)
        @Test("a callback may come late, and twice: after the operation is gone, it changes nothing")
        func lateCallbackAfterTheOperationIsGone() async {
            // In a process of its own: a callback that reaches a freed operation crashes.
            let message = """
                the process crashed when the work called its callback again, after the operation had finished and \
                everything else had let go of it: a callback that holds the operation unowned reaches freed memory \
                then. Capture self strongly (the work holds the callback only as long as it keeps it) or weakly \
                (hint: "Any thread will do")
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
        weak var queue: OperationQueue?
        weak var observerQueue: OperationQueue?
        weak var observerGone: BlockOperation?
        do {
            let finished = DispatchSemaphore(value: 0)
            let operation = CallbackOperation { complete in kept.withLock { $0 = complete } }
            gone = operation
            let observer = BlockOperation { finished.signal() }
            observerGone = observer
            observer.addDependency(operation)
            let queues = (OperationQueue(), OperationQueue())
            queue = queues.0
            observerQueue = queues.1
            queues.0.addOperation(operation)
            queues.1.addOperation(observer)
            let started = Date()
            while kept.withLock({ $0 }) == nil && Date().timeIntervalSince(started) < 5 { usleep(1_000) }
            kept.withLock { $0 }?()
            _ = finished.wait(timeout: .now() + 5)
        }
        // The queues let go of their operations on their own threads: wait until the operation is
        // gone, or everything but the callback has let go of it (a callback that holds it
        // strongly keeps it: that is fine), or 2 s.
        let deadline = Date(timeIntervalSinceNow: 2)
        while gone != nil && (queue != nil || observerQueue != nil || observerGone != nil) && Date() < deadline {
            usleep(1_000)
        }
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

/// The callback a work was given, kept for the test to call.
private final class CallbackBox: Sendable {
    private let stored = Locked<(@Sendable () -> Void)?>(nil)
    private let arrived = Flag()

    func keep(_ callback: @escaping @Sendable () -> Void) {
        stored.withLock { $0 = callback }
        arrived.raise()
    }

    /// The callback, once the work has kept it; nil if it had not within `seconds`.
    func kept(within seconds: Double) async -> (@Sendable () -> Void)? {
        guard await arrived.wait(seconds: seconds) else { return nil }
        return stored.withLock { $0 }
    }
}

/// The exercise's operation, watched: it says when its `main()` has returned, and may be
/// cancelled just before `main()` runs, after `start()` decided to run it.
private final class WatchedCallback: CallbackOperation, @unchecked Sendable {
    // @unchecked Sendable: a thread-safe flag, and a setting made before the operation is queued.
    let mainReturned = Flag()
    var cancelsBeforeMain = false

    override init(_ work: @escaping Work) { super.init(work) }

    override func main() {
        if cancelsBeforeMain { cancel() }
        super.main()
        mainReturned.raise()
    }
}
