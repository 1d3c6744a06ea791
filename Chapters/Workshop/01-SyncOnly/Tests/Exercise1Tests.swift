import Dispatch
import Exercise1
import Foundation
import TestSupport
import Testing

@Suite("Exercise 1 — a synchronous operation that waits for its work")
struct Exercise1Tests {
    @Test("work on a concurrent queue, held for 0.3 s: the operation finishes when the work ends, not before")
    func workOnAConcurrentQueue() async {
        await Self.check(
            on: DispatchQueue.global(), queueHeldFor: nil, workHeldUntil: 0.3, underlyingQueue: Self.underlyingQueues[0]
        )
    }

    // Held past 2 s: main() that sleeps a guessed time (up to 2 s) instead of waiting has then
    // returned while the work still runs. The work ends only when the check lets it, so a
    // check delayed by a busy machine looks later, never earlier.
    @Test("work on a serial queue that starts it late, held until 2.3 s: the operation finishes when the work ends")
    func workOnASerialQueue() async {
        let workQueue = HeldQueue("exercise1-work")
        await Self.check(
            on: workQueue.queue, queueHeldFor: (workQueue, 0.5), workHeldUntil: 2.3,
            underlyingQueue: Self.underlyingQueues[1])
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
            Issue.record("the operation's completion block never ran: did main() return? (hint: \"Wait for the work\")")
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
                "the operation never finished: does main() wait for something that never comes? (hint: \"Wait for the work\")"
            )
            return
        }
        let ran = places.events
        if ran.isEmpty {
            Issue.record(
                "the work never ran: main() must send it to workQueue, and wait for it (hint: \"Wait for the work\")")
        } else if ran.count > 1 {
            Issue.record(
                "the work ran \(ran.count) times: main() must send it to workQueue once, then wait for that one (hint: \"Wait for the work\")"
            )
        } else if ran[0] != "workQueue" {
            Issue.record(
                """
                the work ran on the operation's own thread, not on workQueue: main() must send it to workQueue, as \
                chapter 1's operation does, then wait for it (hint: "Wait for the work")
                """)
        }
    }

    /// The operation queues' underlying queues, one per test, kept as long as the process: an
    /// operation queue does not keep its underlying queue (on Linux), and an operation may still
    /// use it after a check has given up on it.
    static let underlyingQueues = (0..<2).map { DispatchQueue(label: "exercise1-operations-\($0)") }

    /// Runs a `WaitingOperation` whose work takes until `workEnd` seconds after the start (the
    /// work queue itself held for a while first, if given), and checks that the operation
    /// finishes only after the work ended, and soon after it.
    static func check(
        on workQueue: DispatchQueue, queueHeldFor queueHold: (queue: HeldQueue, seconds: Double)?,
        workHeldUntil workEnd: Double, underlyingQueue: DispatchQueue
    ) async {
        // The clock runs on a thread of its own: the operation's main() and its work each block
        // a thread of Dispatch's pool, which can delay the test's own tasks by a second.
        let problem = await read(within: 10) {
            Self.problem(
                on: workQueue, queueHeldFor: queueHold, workHeldUntil: workEnd, underlyingQueue: underlyingQueue)
        }
        switch problem {
        case nil: Issue.record("the check itself never ended: does main() wait for something that never comes?")
        case let problem??: Issue.record(Comment(rawValue: problem))
        case .some(nil): break
        }
    }

    /// What `check` finds wrong, or nil. Blocks: it reads `isFinished` itself, which a
    /// synchronous operation's queue sets the moment `main()` returns, so no observer's delay
    /// can hide a `main()` that returned too early, or excuse one that returned late.
    static func problem(
        on workQueue: DispatchQueue, queueHeldFor queueHold: (queue: HeldQueue, seconds: Double)?,
        workHeldUntil workEnd: Double, underlyingQueue: DispatchQueue
    ) -> String? {
        let workStarted = DispatchSemaphore(value: 0)
        let workMayEnd = DispatchSemaphore(value: 0)
        let workEnded = DispatchSemaphore(value: 0)
        let runs = Counter()
        let operation = WaitingOperation(on: workQueue) {
            runs.increment()
            workStarted.signal()
            _ = workMayEnd.wait(timeout: .now() + 10)  // the work queue's own thread, bounded
            workEnded.signal()
        }
        let start = Date()
        // A serial dispatch queue under the operation queue: main() then blocks a thread of
        // its own, not one of the few that Dispatch shares with every concurrent queue (two on
        // a two-core machine), so the work on a concurrent queue starts at once.
        let operations = OperationQueue()
        operations.underlyingQueue = underlyingQueue
        operations.addOperation(operation)
        defer { workMayEnd.signal() }

        if let queueHold {
            Thread.sleep(forTimeInterval: queueHold.seconds)
            let finishedEarly = operation.isFinished
            queueHold.queue.release()
            if finishedEarly {
                return """
                    the operation finished before its work even started: main() must wait for the work's signal \
                    (hint: "Wait for the work")
                    """
            }
        }
        guard workStarted.wait(timeout: .now() + 5) == .success else {
            return "the work never started: does main() still send it to workQueue?"
        }
        Thread.sleep(forTimeInterval: max(workEnd + start.timeIntervalSinceNow, 0.3))
        if operation.isFinished {
            return """
                the operation finished while its work was still running: main() returned before the work ended. \
                It must wait for a signal that the work sends once work() has returned (hint: "Wait for the work")
                """
        }
        workMayEnd.signal()
        guard workEnded.wait(timeout: .now() + 5) == .success else { return "the work never ended" }
        let deadline = Date(timeIntervalSinceNow: 0.8)
        while !operation.isFinished && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if runs.value > 1 {
            return """
                the work ran \(runs.value) times: main() must send it to workQueue once, and wait for that one \
                (hint: "Wait for the work")
                """
        }
        if !operation.isFinished {
            // Late, or never? A guess of how long the work takes returns in the end.
            let later = Date(timeIntervalSinceNow: 3)
            while !operation.isFinished && Date() < later { Thread.sleep(forTimeInterval: 0.02) }
            if operation.isFinished {
                return """
                    the work ended, but main() returned more than 0.8 s later: it must return as soon as the work \
                    signals, not after a sleep or a timeout that guesses how long the work takes (hint: "Wait for the \
                    work")
                    """
            }
            return """
                the work ended, and main() had still not returned 3.8 s later: it waits for something that never \
                comes — a second wait, a signal the work never sends, workQueue.sync from inside the work \
                (hint: "Wait for the work")
                """
        }
        return nil
    }
}
