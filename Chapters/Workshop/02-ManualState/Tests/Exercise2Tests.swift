import Dispatch
import Exercise2
import Foundation
import TestSupport
import Testing

@Suite("Exercise 2 — finish() announces its changes")
struct Exercise2Tests {
    @Test("finish() returns: it announces nothing while holding the lock")
    func finishReturns() async {
        let operation = WatchedOperation()
        OperationQueue().addOperation(operation)
        guard await operation.finishCalled.wait(seconds: 5) else {
            Issue.record("the queue never called main(), so finish() was never called: does start() still call main()?")
            return
        }
        #expect(
            await operation.finishReturned.wait(seconds: 5),
            """
            deadlock: finish() never returned. Is didChangeValue called inside lock.withLock { }? Foundation reads \
            isFinished from inside it, and that getter waits for the same lock (hint: "Outside the lock").
            """
        )
    }

    @Test(
        "finish() announces \"isExecuting\" and \"isFinished\": willChangeValue before the change, didChangeValue after it"
    )
    func announcesBothKeys() async throws {
        #if os(Linux)
            // Linux's Foundation declares willChangeValue(forKey:) on Operation as a method that
            // does nothing and that no subclass can override: only the source shows those calls.
            // Every form counts (literal keys, a loop, a helper): the calls are only paired.
            let source = try #require(
                ExerciseSource("Exercise2/AnnouncingOperation.swift"), "the exercise file is missing")
            for problem in source.announcementProblems() {
                Issue.record("\(source.path): \(problem) (hint: \"Why both calls\")")
            }
            // didChangeValue(forKey: key) reads that key's getter before it returns (Linux's
            // Foundation; on a Mac, the overrides below see the call itself): a getter that
            // said the new state, on the thread running finish(), was announced after the change.
            let operation = WatchedOperation()
            OperationQueue().addOperation(operation)
            guard await operation.finishReturned.wait(seconds: 5) else {
                Issue.record(
                    "finish() never returned, so what it announces cannot be seen: see finishReturns (hint: \"Outside the lock\")"
                )
                return
            }
            for (key, newState) in [("isExecuting", false), ("isFinished", true)]
            where !operation.reads.events.contains("\(key) \(newState)") {
                Issue.record(
                    """
                    finish() never announces "\(key)" with didChangeValue(forKey:) after the change (if it calls it before, the \
                    queue reads the old state) (hint: "Announce each change")
                    """)
            }
        #else
            // On a Mac (read, not verified here): the watched operation overrides NSObject's
            // willChangeValue(forKey:) and didChangeValue(forKey:), and records each call that
            // finish() makes, with what the getters said at that moment.
            let operation = WatchedOperation()
            OperationQueue().addOperation(operation)
            guard await operation.finishReturned.wait(seconds: 5) else {
                Issue.record(
                    "finish() never returned, so what it announces cannot be seen: see finishReturns (hint: \"Outside the lock\")"
                )
                return
            }
            let problems =
                operation.announcements.problems(announcing: "isExecuting", changedTo: false, in: "finish()")
                + operation.announcements.problems(announcing: "isFinished", changedTo: true, in: "finish()")
            for problem in problems {
                Issue.record("\(problem) (hint: \"Announce each change\")")
            }
        #endif
    }

    @Test("the queue learns that the operation finished, and its dependent starts after it")
    func queueLearnsFinished() async {
        let log = EventLog()
        let greeting = DelayedGreeting(on: DispatchQueue.global(), report: log.record)
        let dependent = BlockOperation { log.record("Dependent ran") }
        dependent.addDependency(greeting)
        OperationQueue().add([greeting, dependent])

        let learned = await TestSupport.queueLearnsFinished(dependent, within: 5)
        #expect(
            learned,
            """
            the queue never learned that the operation finished: finish() must announce "isFinished", and its \
            didChangeValue must come after the change (hint: "Announce each change")
            """)
        if learned {
            #expect(log.events == ["Executing", "Dependent ran"], "the dependent must start only after finish()")
        }
    }

    @Test("after finish(), the operation is finished and no longer executing")
    func stateAfterFinish() async {
        let greeting = DelayedGreeting(on: DispatchQueue.global()) { _ in }
        OperationQueue().addOperation(greeting)
        guard await TestSupport.queueLearnsFinished(greeting, within: 5) else {
            Issue.record(
                "the queue never learned that the operation finished: finish() must announce \"isFinished\" (hint: \"Announce each change\")"
            )
            return
        }
        let state = await read { (finished: greeting.isFinished, executing: greeting.isExecuting) }
        #expect(state?.finished == true && state?.executing == false, "finish() must set finished and clear executing")
    }
}

/// The exercise's operation, watched: `main()` calls `finish()` on a thread of its own, and
/// the operation records what its getters say on that thread and (on a Mac) what `finish()`
/// announces; it tells the test when `finish()` was called and when it returned.
private final class WatchedOperation: AnnouncingOperation, @unchecked Sendable {
    // @unchecked Sendable: thread-safe flags and logs, on the learner's superclass.
    static let finishingThread = "exercise2.finish"
    let finishCalled = Flag()
    let finishReturned = Flag()
    /// "isExecuting false", "isFinished true"...: each read of a getter on the finishing thread.
    let reads = EventLog()
    let announcements = AnnouncementLog()

    override var isExecuting: Bool { reported("isExecuting", super.isExecuting) }
    override var isFinished: Bool { reported("isFinished", super.isFinished) }

    private func reported(_ key: String, _ state: Bool) -> Bool {
        if ThreadMark.isSet(Self.finishingThread) { reads.record("\(key) \(state)") }
        return state
    }

    override func main() {
        let thread = Thread {
            ThreadMark.set(Self.finishingThread)
            self.finishCalled.raise()
            self.announcements.start()
            self.finish()
            self.announcements.stop()
            self.finishReturned.raise()
        }
        thread.start()
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
