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
            Issue.record(
                "the queue never called main(), so finish() was never called: does start() still call main()? (hint: \"Announce each change\")"
            )
            return
        }
        guard !(await operation.finishReturned.wait(seconds: 5)) else { return }
        if let key = operation.stuckIn() {
            Issue.record(
                """
                deadlock: finish() never returned. It is stuck in its didChangeValue for "\(key)", which reads \(key) \
                before it returns; that getter waits for the lock that finish() holds. Announce after \
                lock.withLock { } has returned (hint: "Outside the lock")
                """)
        } else {
            Issue.record(
                """
                deadlock: finish() never returned: does it wait for a lock that it holds, or that a getter holds? \
                (hint: "Outside the lock")
                """)
        }
    }

    @Test("while finish() announces a change, its lock is free: another thread can read isFinished")
    func announcesOutsideTheLock() async {
        // The queue, a waiter in waitUntilFinished(), a dependent: others read the getters while
        // finish() announces. A lock that the announcing thread may take again (NSRecursiveLock)
        // spares only that thread: another one waits, and waitUntilFinished() from another
        // thread deadlocks (chapter 2, "What goes wrong").
        let operation = WatchedOperation()
        operation.probesTheLock = true
        OperationQueue().addOperation(operation)
        let returned = await operation.finishReturned.wait(seconds: 10)
        let held = operation.heldWhileAnnouncing.events
        if let key = held.first {
            Issue.record(
                """
                while finish() announced "\(key)", its lock was held: another thread that read isFinished then waited \
                for finish() to let go. An NSRecursiveLock lets the announcing thread in again, but no other one: \
                a waitUntilFinished() on another thread deadlocks (chapter 2). Change the state under the lock, and \
                announce after it (hint: "Outside the lock")
                """)
        } else if !returned {
            Issue.record("finish() never returned: see finishReturns (hint: \"Outside the lock\")")
        }
    }

    @Test(
        "finish() announces \"isExecuting\" and \"isFinished\": willChangeValue before the change, didChangeValue after it"
    )
    func announcesBothKeys() async throws {
        #if os(Linux)
            // Linux's Foundation declares willChangeValue(forKey:) on Operation as a method that
            // does nothing and that no subclass can override: only the source shows those calls.
            // Every form counts (literal keys, a loop, a helper): the calls are paired, in order.
            let file = ExerciseSource("Exercise2/AnnouncingOperation.swift")
            let source = try #require(file, "the exercise file is missing")
            for problem in source.announcementProblems() + source.orderProblems() {
                Issue.record("\(source.path): \(problem) (hint: \"Why both calls\")")
            }
            // didChangeValue(forKey: key) reads that key's getter before it returns (Linux's
            // Foundation): a getter that said the new state, on the thread running finish(),
            // was announced after the change.
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
            #expect(
                log.events == ["Executing", "Dependent ran"],
                "the dependent must start only after finish() (hint: \"Announce each change\")")
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
        #expect(
            state?.finished == true && state?.executing == false,
            "finish() must set finished and clear executing (hint: \"Announce each change\")")
    }
}

/// The exercise's operation, watched: `main()` calls `finish()` on a thread of its own, and
/// the operation records what its getters are asked and say on that thread (and, on a Mac,
/// what `finish()` announces); it tells the test when `finish()` was called and when it
/// returned. With `probesTheLock`, at each key's first announcement it checks, from another
/// thread, whether the lock its getters take is free.
private final class WatchedOperation: AnnouncingOperation, @unchecked Sendable {
    // @unchecked Sendable: thread-safe flags and logs, set before the operation is queued.
    static let finishingThread = "exercise2.finish"
    let finishCalled = Flag()
    let finishReturned = Flag()
    /// "isExecuting false", "isFinished true"...: each read of a getter on the finishing thread.
    let reads = EventLog()
    /// "isExecuting"...: each getter that the finishing thread began to read (it may never end).
    let began = EventLog()
    let announcements = AnnouncementLog()
    var probesTheLock = false
    /// The keys whose announcement came while the lock was held.
    let heldWhileAnnouncing = EventLog()
    private let probed = EventLog()

    override var isExecuting: Bool { watched("isExecuting") { super.isExecuting } }
    override var isFinished: Bool { watched("isFinished") { super.isFinished } }

    /// The learner's getter, read from any thread, unwatched.
    func learnersIsFinished() -> Bool { super.isFinished }

    private func watched(_ key: String, _ read: () -> Bool) -> Bool {
        guard ThreadMark.isSet(Self.finishingThread) else { return read() }
        began.record(key)
        #if os(Linux)
            // On Linux, didChangeValue(forKey:) reads the getter before it returns: this read is
            // the announcement.
            probeTheLock(announcing: key)
        #endif
        let state = read()
        reads.record("\(key) \(state)")
        return state
    }

    /// The key whose announcement finish() is stuck in: the getter it began to read last and
    /// never returned from (on a Mac, the last didChangeValue that did not return).
    func stuckIn() -> String? {
        let begun = began.events
        guard let last = begun.last else { return nil }
        let finished = reads.events.filter { $0.hasPrefix(last + " ") }.count
        return begun.filter { $0 == last }.count > finished ? last : nil
    }

    /// Whether another thread can read isFinished now, while `key` is announced: if it
    /// cannot within a few seconds, the lock is held (and the thread stays blocked until it
    /// is let go, or for ever).
    private func probeTheLock(announcing key: String) {
        guard probesTheLock, !probed.events.contains(key) else { return }
        probed.record(key)
        let readIt = DispatchSemaphore(value: 0)
        Thread {
            _ = self.learnersIsFinished()
            readIt.signal()
        }.start()
        if readIt.wait(timeout: .now() + 3 * boundStretch) == .timedOut { heldWhileAnnouncing.record(key) }
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
            let watchedThread = ThreadMark.isSet(Self.finishingThread)
            if watchedThread {
                began.record(key)
                probeTheLock(announcing: key)
            }
            announcements.record(.did, key, of: self)
            super.didChangeValue(forKey: key)
            if watchedThread { reads.record("\(key) announced") }
        }
    #endif
}
