import Dispatch
import Exercise1
import Foundation
import TestSupport
import Testing

@Suite("Exercise 1 — a synchronous operation that waits for its work")
struct Exercise1Tests {
    @Test("work on a concurrent queue, held: main() waits for it, with no time limit, and returns once it ends")
    func workOnAConcurrentQueue() async {
        let problem = await read(within: 60) { HeldRun(workQueue: DispatchQueue.global(), heldQueue: nil).problem() }
        Self.report(problem)
    }

    @Test("work on a serial queue that starts it late: main() waits before the work starts, and while it runs")
    func workOnASerialQueue() async {
        let problem = await read(within: 60) {
            let held = HeldQueue("exercise1-work")
            return HeldRun(workQueue: held.queue, heldQueue: held).problem()
        }
        Self.report(problem)
    }

    @Test("the work runs before the operation's completion block")
    func workBeforeCompletion() async {
        let log = EventLog()
        let operation = WaitingOperation(on: DispatchQueue.global()) { log.record("work ran") }
        let completionRan = Flag()
        operation.completionBlock = {
            log.record("operation finished")
            completionRan.raise()
        }
        OperationQueue().addOperation(operation)
        guard await completionRan.wait(seconds: 5) else {
            Issue.record(
                "5 s after the operation was queued, its completion block had not run: main() had not returned (hint: \"Wait for the work\")"
            )
            return
        }
        #expect(
            log.events == ["work ran", "operation finished"],
            "the work must run once, before the operation finishes; what happened: \(log.events) (hint: \"Wait for the work\")"
        )
    }

    @Test("the work runs once, on workQueue, not on the operation's own thread")
    func workRunsOnItsQueue() async {
        let key = DispatchSpecificKey<String>()
        let workQueue = DispatchQueue(label: "exercise1-its-queue", attributes: .concurrent)
        workQueue.setSpecific(key: key, value: "workQueue")
        let places = EventLog()
        let operation = WaitingOperation(on: workQueue) {
            places.record(DispatchQueue.getSpecific(key: key) ?? "another thread")
        }
        guard await OperationQueue().runs(operation, within: 5) else {
            Issue.record(
                "5 s after it was queued, the operation had not finished: its main() had not returned (hint: \"Wait for the work\")"
            )
            return
        }
        let ran = places.events
        if ran.isEmpty {
            Issue.record(
                "main() returned and the work had not run: main() must send it to workQueue, and wait for it (hint: \"Wait for the work\")"
            )
        } else if ran.count > 1 {
            Issue.record(
                "the work ran \(ran.count) times: main() must send it to workQueue once, then wait for that one (hint: \"Wait for the work\")"
            )
        } else if ran[0] != "workQueue" {
            Issue.record(
                """
                the work ran outside workQueue (on the operation's own thread): main() must send it to workQueue, as \
                chapter 1's operation does, then wait for it (hint: "Wait for the work")
                """)
        }
    }

    static func report(_ problem: String??) {
        switch problem {
        case nil:
            Issue.record("the check did not end within 60 s: main() never returned, even once its work had ended")
        case let problem??: Issue.record(Comment(rawValue: problem))
        case .some(nil): break
        }
    }
}

/// One run of a `WaitingOperation` whose work the test holds: `main()` runs on a thread of the
/// test's (the operation is started by hand, as a queue starts it), so the test can see what
/// that thread does while the work waits for its queue (`heldQueue`), while it runs, and once
/// it has ended. Blocking: run it on a thread of its own.
private final class HeldRun: @unchecked Sendable {
    // @unchecked Sendable: semaphores and flags; `mainThread` and `workThread` only touched under
    // `lock`; `workQueue` and `heldQueue` are constants.
    let workQueue: DispatchQueue
    let heldQueue: HeldQueue?
    private let mainStarted = DispatchSemaphore(value: 0)
    private let mainReturned = Flag()
    private let workStarted = DispatchSemaphore(value: 0)
    private let workMayEnd = DispatchSemaphore(value: 0)
    private let workEnded = Flag()
    private let runs = Counter()
    private let lock = NSLock()
    private var mainThread: ThreadActivity.KernelThread?
    private var workThread: ThreadActivity.KernelThread?

    init(workQueue: DispatchQueue, heldQueue: HeldQueue?) {
        self.workQueue = workQueue
        self.heldQueue = heldQueue
    }

    /// What is wrong, or nil.
    func problem() -> String? {
        defer {
            workMayEnd.signal()
            heldQueue?.release()
        }
        let operation = WaitingOperation(on: workQueue) {
            self.runs.increment()
            self.lock.withLock { self.workThread = .current }
            self.workStarted.signal()
            _ = self.workMayEnd.wait(timeout: .now() + 30)  // the work queue's own thread, bounded
            self.workEnded.raise()
        }
        Thread {
            self.lock.withLock { self.mainThread = .current }
            self.mainStarted.signal()
            operation.start()
            self.mainReturned.raise()
        }.start()
        guard mainStarted.wait(timeout: .now() + 5 * boundStretch) == .success else {
            return "the test's thread never started"
        }
        let started = Date()
        let mainThread = lock.withLock { self.mainThread }

        if let heldQueue {
            // The work waits behind something else on its serial queue: main() must wait already.
            if let problem = watch(mainThread, while: "its work waited for workQueue, which was still busy") {
                return problem
            }
            heldQueue.release()
        }
        // The work runs, held by the test: main() must go on waiting, for as long as it runs.
        while workStarted.wait(timeout: .now() + 0.01) == .timedOut {
            if mainReturned.isRaised {
                return """
                    main() returned before its work had started: the queue then reports the operation finished while \
                    the work has not even run. main() must wait for a signal that the work sends once work() has \
                    returned (hint: "Wait for the work")
                    """
            }
            if Date().timeIntervalSince(started) > 5 * boundStretch {
                return "main() had not sent the work to workQueue 5 s after it started: does it still send it there?"
            }
        }
        let workThread = lock.withLock { self.workThread }
        if workThread == nil || workThread != mainThread,
            let problem = watch(mainThread, while: "its work was still running (the test held it)", since: started)
        {
            return problem
        }
        // The work ends: main() must return now.
        workMayEnd.signal()
        guard workEnded.isRaised || waitFor(workEnded, seconds: 5) else { return "the work never ended" }
        guard waitFor(mainReturned, seconds: 5) else {
            let activity = mainThread.map { ThreadActivity.settled($0, within: 1) } ?? .unknown
            let seen = activity == .unknown ? "" : " (its thread was \(activity))"
            return """
                the work ended, and main() had still not returned 5 s later\(seen): it waits for something that never \
                comes — a second wait, a signal the work never sends, workQueue.sync from inside the work \
                (hint: "Wait for the work")
                """
        }
        if runs.value > 1 {
            return """
                the work ran \(runs.value) times: main() must send it to workQueue once, and wait for that one \
                (hint: "Wait for the work")
                """
        }
        return nil
    }

    /// What is wrong with what main()'s thread does `while` something the test holds: nil if it
    /// waits with no time limit (or, where the kernel cannot tell, if it has not returned by
    /// 2.3 s after `since`: a guessed wait of up to 2 s has returned by then).
    private func watch(_ mainThread: ThreadActivity.KernelThread?, while what: String, since: Date? = nil) -> String? {
        let activity =
            mainThread.map { thread in ThreadActivity.settled(thread, stop: { self.mainReturned.isRaised }) }
            ?? .unknown
        if mainReturned.isRaised {
            return """
                main() returned while \(what): the queue then reports the operation finished too early. main() must \
                wait for a signal that the work sends once work() has returned (hint: "Wait for the work")
                """
        }
        switch activity {
        case .waitingWithoutLimit, .otherCall:
            return nil
        case .waitingWithLimit(let call):
            let kind = call.hasPrefix("futex") ? "a wait with a timeout" : "a sleep"
            return """
                while \(what), main()'s thread was in \(kind) (the kernel saw \(call)), which ends by itself once its \
                time has passed, whether the work has ended or not. Whatever the limit, it guesses how long the work takes: \
                wait for the work's own signal, with no time limit (hint: "Wait for the work")
                """
        case .wakingRepeatedly(let call):
            return """
                while \(what), main()'s thread was seen asleep (\(call)) at each look, yet woke up again and again \
                in between: a loop that sleeps a little and looks again. However short the sleep, it is a guess \
                repeated; wait for the work's own signal, which wakes main() once (hint: "Wait for the work")
                """
        case .running:
            return """
                while \(what), main()'s thread kept running for 2 s without blocking: a loop that checks again and \
                again. Wait for the work's signal instead (hint: "Wait for the work")
                """
        case .unknown:
            // No kernel to ask (a Mac): hold until a guessed wait of up to 2 s has passed.
            if let since {
                Thread.sleep(until: since.addingTimeInterval(2.3))
            } else {
                Thread.sleep(forTimeInterval: 0.5)
            }
            return mainReturned.isRaised
                ? """
                main() returned while \(what): a sleep or a wait with a time limit ended before the work did. \
                Wait for the work's own signal (hint: "Wait for the work")
                """ : nil
        }
    }

    private func waitFor(_ flag: Flag, seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds * boundStretch)
        while !flag.isRaised && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        return flag.isRaised
    }
}
