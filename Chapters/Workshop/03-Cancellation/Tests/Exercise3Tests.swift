import Dispatch
import Exercise3
import Foundation
import TestSupport
import Testing

@Suite("Exercise 3 — a cancelled operation finishes in start()")
struct Exercise3Tests {
    @Test("cancelled before it starts: main() never runs, and the queue learns that it finished")
    func cancelledBeforeStart() async {
        let operation = WatchedOperation()
        guard await Self.cancelLeavesItPending(operation) else { return }
        OperationQueue().addOperation(operation)
        let learned = await queueLearnsFinished(operation, within: 5)
        #expect(
            !operation.mainRan.isRaised,
            """
            start() called main() for a cancelled operation, so its work ran: look at isCancelled in start(), \
            before main(), and return (hint: "Look first")
            """)
        #expect(
            learned,
            """
            the cancelled operation never finished: start() must set finished = true and announce "isFinished", \
            outside the lock (hint: "Finish without running")
            """)
        if learned {
            let state = await read { (finished: operation.isFinished, executing: operation.isExecuting) }
            #expect(
                state?.finished == true && state?.executing == false,
                "cancelled before it started: finished = true, and executing stays false (hint: \"Finish without running\")"
            )
        }
    }

    @Test("cancelled before it starts: it is never marked executing")
    func neverExecuting() async {
        let operation = WatchedOperation()
        guard await Self.cancelLeavesItPending(operation), await Self.start(operation) else { return }
        // A getter that said "executing" while the cancelled operation started: on Linux,
        // Foundation's didChangeValue(forKey: "isExecuting") reads it; on a Mac, the watched
        // operation's override of that method does.
        let markedExecuting = operation.reads.events.contains("isExecuting true")
        #expect(
            !markedExecuting,
            """
            start() marked the cancelled operation executing before it finished it: look at isCancelled first, \
            before announcing "isExecuting" (hint: "Look first")
            """)
    }

    @Test("cancelled before it starts: start() announces \"isFinished\", willChangeValue before didChangeValue")
    func announcesFinished() async throws {
        let operation = WatchedOperation()
        guard await Self.cancelLeavesItPending(operation), await Self.start(operation) else { return }
        #if os(Linux)
            // Linux's Foundation declares willChangeValue(forKey:) on Operation as a method that
            // does nothing and that no subclass can override: only the source shows those calls.
            // Every form counts (literal keys, a loop, a helper, finish()): the calls are paired, in order.
            let file = ExerciseSource("Exercise3/CancelAwareOperation.swift")
            let source = try #require(file, "the exercise file is missing")
            for problem in source.announcementProblems() + source.orderProblems() {
                Issue.record("\(source.path): \(problem) (hint: \"Finish without running\")")
            }
            // didChangeValue(forKey: "isFinished") reads isFinished before it returns (Linux's
            // Foundation; on a Mac, the overrides below see the call itself).
            let announced = operation.reads.events.contains("isFinished true")
            #expect(
                announced,
                """
                start() never announces "isFinished" with didChangeValue(forKey:) after setting finished, so a queue never \
                learns it: announce the change (hint: "Finish without running")
                """)
        #else
            // On a Mac (read, not verified here): the watched operation overrides NSObject's
            // willChangeValue(forKey:) and didChangeValue(forKey:), and records each call that
            // start() made, with what the getters said at that moment.
            for problem in operation.announcements.problems(
                announcing: "isFinished", changedTo: true, in: "start(), when cancelled,")
            {
                Issue.record("\(problem) (hint: \"Finish without running\")")
            }
        #endif
    }

    @Test("a ReportingOperation cancelled before it starts reports nothing")
    func cancelledReportsNothing() async {
        let log = EventLog()
        let operation = ReportingOperation(report: log.record)
        guard await Self.cancelLeavesItPending(operation) else { return }
        OperationQueue().addOperation(operation)
        #expect(
            await queueLearnsFinished(operation, within: 5),
            "the cancelled operation never finished (hint: \"Finish without running\")")
        #expect(
            log.events.isEmpty,
            "a cancelled operation ran its work: start() must return before main() (hint: \"Look first\")")
    }

    @Test("cancelled while its work runs: it ends when the work ends, and its dependent starts only then")
    func cancelledWhileRunning() async {
        let operation = HeldWork()
        let dependentRan = Flag()
        let dependent = BlockOperation { dependentRan.raise() }
        dependent.addDependency(operation)
        OperationQueue().add([operation, dependent])
        defer { operation.release() }
        guard await operation.running.wait(seconds: 5) else {
            Issue.record("the operation's work never started (hint: \"Look first\")")
            return
        }
        guard await blockingCall(within: 5, { operation.cancel() }) else {
            Issue.record(
                "cancel() never returned: does it wait for a lock, or for the work? (hint: \"Not in cancel()\")")
            return
        }
        // Its work still runs: nothing may say it is over. A cancel() that finishes at once
        // says so before it returns; one that finishes a moment later, within the moment.
        let finishedAtOnce = await read { operation.isFinished } == true
        let dependentEarly = finishedAtOnce ? true : await dependentRan.wait(seconds: 0.5)
        operation.release()
        if finishedAtOnce || dependentEarly {
            Issue.record(
                """
                cancel() finished the operation while its work still ran: its dependent could start before the work \
                had ended, and the work's own finish() then finishes it a second time. A running operation ends when \
                its work ends; cancel() only marks it cancelled (hint: "Not in cancel()")
                """)
            return
        }
        #expect(
            await dependentRan.wait(seconds: 5),
            "the work ended, but the operation's dependent never started: does finish() still announce \"isFinished\"? (hint: \"Finish without running\")"
        )
    }

    @Test("an operation that is not cancelled still runs its work")
    func notCancelledRuns() async {
        let log = EventLog()
        let operation = ReportingOperation(report: log.record)
        OperationQueue().addOperation(operation)
        #expect(
            await queueLearnsFinished(operation, within: 5),
            "the operation never finished: does start() still announce \"isExecuting\" and call main()? (hint: \"Look first\")"
        )
        #expect(
            log.events == ["Executing"],
            "start() must still call main() when the operation is not cancelled (hint: \"Look first\")")
    }

    /// Calls `start()` by hand, on a thread of its own that the watched operation knows; false,
    /// with the reason recorded, if it does not return.
    fileprivate static func start(_ operation: WatchedOperation) async -> Bool {
        operation.announcements.start()
        defer { operation.announcements.stop() }
        guard await blockingCall(threadMark: WatchedOperation.startingThread, within: 5, { operation.start() }) else {
            Issue.record(
                "start() never returned for a cancelled operation: is it waiting for a lock it holds? (hint: \"Finish without running\")"
            )
            return false
        }
        return true
    }

    /// Cancels `operation`, which no queue holds yet; false, with the reason recorded, if that
    /// marked it finished (a queue would then refuse it: Foundation traps).
    static func cancelLeavesItPending(_ operation: CancelAwareOperation) async -> Bool {
        guard await completes(within: 5, { operation.cancel() }) else {
            Issue.record(
                "cancel() never returned: does it wait for a lock, or for the operation to finish? (hint: \"Not in cancel()\")"
            )
            return false
        }
        if await read({ operation.isFinished }) != false {
            Issue.record(
                """
                cancel() marked an operation finished that no queue had started: Foundation then prints "went \
                isFinished=YES without being started by the queue it is in", and may crash. Leave cancel() alone: \
                start() finishes a cancelled operation (hint: "Not in cancel()")
                """)
            return false
        }
        return true
    }
}

/// An operation whose work only records that it ran. It records what its getters say on the
/// thread that `Exercise3Tests.start(_:)` runs `start()` on, and (on a Mac) what is announced
/// while `announcements` records.
private final class WatchedOperation: CancelAwareOperation, @unchecked Sendable {
    // @unchecked Sendable: thread-safe flags and logs, on the learner's superclass.
    static let startingThread = "exercise3.start"
    let mainRan = Flag()
    /// "isExecuting false", "isFinished true"...: each read of a getter on the starting thread.
    let reads = EventLog()
    let announcements = AnnouncementLog()

    override var isExecuting: Bool { reported("isExecuting", super.isExecuting) }
    override var isFinished: Bool { reported("isFinished", super.isFinished) }

    private func reported(_ key: String, _ state: Bool) -> Bool {
        if ThreadMark.isSet(Self.startingThread) { reads.record("\(key) \(state)") }
        return state
    }

    override func main() {
        mainRan.raise()
        finish()
    }

    #if !os(Linux)
        // NSObject's methods, which a subclass can override on a Mac (not on Linux).
        override func willChangeValue(forKey key: String) {
            announcements.record(.will, key, of: self)
            super.willChangeValue(forKey: key)
        }

        override func didChangeValue(forKey key: String) {
            announcements.record(.did, key, of: self)
            super.didChangeValue(forKey: key)
        }
    #endif
}

/// Work that runs on a thread of its own until the test lets it end, then finishes.
private final class HeldWork: CancelAwareOperation, @unchecked Sendable {
    // @unchecked Sendable: a flag and a semaphore, both thread-safe, on the learner's superclass.
    let running = Flag()
    private let mayEnd = DispatchSemaphore(value: 0)

    override func main() {
        running.raise()
        Thread {
            _ = self.mayEnd.wait(timeout: .now() + 10)
            self.finish()
        }.start()
    }

    /// Lets the work end.
    func release() { mayEnd.signal() }
}
