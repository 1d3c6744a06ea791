import Dispatch
import Exercise2
import Foundation
import TestSupport
import Testing

#if canImport(Synchronization)
    import Synchronization
#endif

// kvo pairs checked by hand: the calls named here are in messages to the learner, and the
// watching subclass passes each of the learner's own calls on unchanged.
@Suite("Exercise 2 — finish() announces its changes")
struct Exercise2Tests {
    /// What finish() changes, which it must announce.
    static let finishChanges = [
        AnnouncementWatch.Change("isExecuting", from: true, to: false),
        AnnouncementWatch.Change("isFinished", from: false, to: true),
    ]

    @Test("finish() returns: it announces nothing while holding the lock")
    func finishReturns() async {
        let operation = WatchedOperation()
        OperationQueue().addOperation(operation)
        guard let watch = await operation.finishing(within: 5) else {
            Issue.record(
                "5 s after the operation was queued, its main() had not been called: does start() still call main()? (hint: \"Announce each change\")"
            )
            return
        }
        guard !(await operation.finishReturned.wait(seconds: 5 + watch.getterPatience)) else { return }
        let threads = operation.threadNames
        if let stuck = watch.unreturned.last {
            let held =
                stuck.state == nil
                ? ", and at that call another thread could not read the getters: the lock they take was held. On Linux, didChangeValue(forKey:) reads the key's getter before it returns, on the same thread, and that getter waits for the lock"
                : ""
            Issue.record(
                Comment(
                    rawValue: """
                        deadlock: finish() never returned. It was stuck in its call #\(stuck.number), \(stuck), which \
                        never returned\(held). Calls seen: \(watch.calls(threads: threads)). Announce after \
                        lock.withLock { } has returned (hint: "Outside the lock")
                        """))
        } else {
            Issue.record(
                Comment(
                    rawValue: """
                        deadlock: finish() never returned, and none of its calls to willChangeValue or didChangeValue \
                        was left waiting (calls seen: \(watch.calls(threads: threads))): it waits for something else, \
                        a lock that it holds? (hint: "Outside the lock")
                        """))
        }
    }

    @Test(
        "finish() called inside main(), as work that ends at once does: the operation finishes, each change announced around it"
    )
    func finishInsideMain() async {
        let operation = WatchedOperation(finishesInsideMain: true)
        OperationQueue().addOperation(operation)
        guard await operation.finishing(within: 5) != nil else {
            Issue.record(
                "5 s after the operation was queued, its main() had not been called: does start() still call main()? (hint: \"Announce each change\")"
            )
            return
        }
        guard let watch = await operation.finishing(within: 0),
            await operation.finishReturned.wait(seconds: 10), await operation.startReturned.wait(seconds: 5)
        else { return }  // finishReturns says where it waits
        if !(await TestSupport.queueLearnsFinished(operation, within: 5)) {
            Issue.record(
                """
                finish(), called inside main() on the queue's thread, returned, but the queue never learned that the \
                operation finished: is "isFinished" announced with didChangeValue(forKey:)? (hint: "Announce each change")
                """)
            return
        }
        // start()'s calls and finish()'s, nested on one thread: "isExecuting" goes to true and
        // back to false, "isFinished" to true, each announced around its change.
        let changes = [AnnouncementWatch.Change("isExecuting", from: false, to: true)] + Self.finishChanges
        for (index, problem) in watch.problems(in: "start(), with finish() inside main(),", changes: changes)
            .enumerated()
        {
            let seen = index == 0 ? ". Calls seen: \(watch.calls(threads: operation.threadNames))" : ""
            Issue.record(Comment(rawValue: "\(problem)\(seen) (hint: \"Announce each change\")"))
        }
    }

    @Test("while finish() announces a change, its lock is free: another thread can read the getters")
    func announcesOutsideTheLock() async {
        // The queue, a waiter in waitUntilFinished(), a dependent: others read the getters while
        // finish() announces. The watch reads them from another thread at each call.
        let operation = WatchedOperation()
        OperationQueue().addOperation(operation)
        guard let watch = await operation.finishing(within: 5) else { return }  // finishReturns says why
        let returned = await operation.finishReturned.wait(seconds: 5 + 2 * watch.getterPatience)
        guard let problem = watch.lockProblems(in: operation.place).first else { return }
        let recursive =
            returned
            ? """
             finish() returned all the same: the lock lets the announcing thread in again (a recursive lock), but no \
            other one — a waitUntilFinished() on another thread deadlocks with it (chapter 2).
            """ : ""
        Issue.record(
            Comment(
                rawValue: """
                    \(problem).\(recursive) Change the state under the lock, and announce before and after it \
                    (hint: "Outside the lock")
                    """))
    }

    @Test(
        "finish() announces \"isExecuting\" and \"isFinished\": each willChangeValue before the change, its didChangeValue after it"
    )
    func announcesBothKeys() async {
        guard AnnouncementWatch.seesAnnouncements else {
            Issue.record(
                "this build cannot see announcements (an optimised build?): check the exercise in a debug build")
            return
        }
        let operation = WatchedOperation()
        OperationQueue().addOperation(operation)
        guard let watch = await operation.finishing(within: 5),
            await operation.finishReturned.wait(seconds: 5 + 2 * watch.getterPatience)
        else { return }  // finishReturns says why
        // Announcements finish() left to another thread, if any, have landed once the queue knows.
        _ = await TestSupport.queueLearnsFinished(operation, within: 2)
        let problems =
            watch.problems(in: "start()", changes: [.init("isExecuting", from: false, to: true)]) {
                !operation.madeByFinish($0)
            } + watch.problems(in: "finish()", changes: Self.finishChanges, only: operation.madeByFinish)
        for (index, problem) in problems.enumerated() {
            let section =
                problem.contains("with no willChangeValue") || problem.contains("no didChangeValue for that key")
                ? "Why both calls" : "Announce each change"
            let seen = index == 0 ? ". Calls seen: \(watch.calls(threads: operation.threadNames))" : ""
            Issue.record(Comment(rawValue: "\(problem)\(seen) (hint: \"\(section)\")"))
        }
    }

    @Test("the queue learns that the operation finished, and its dependent starts after it")
    func queueLearnsFinished() async {
        let log = EventLog()
        let greeting = DelayedGreeting(on: DispatchQueue.global(), report: log.record)
        let dependent = BlockOperation { log.record("Dependent ran") }
        dependent.addDependency(greeting)
        OperationQueue().add([greeting, dependent])

        let learned = await TestSupport.queueLearnsFinished(dependent, within: 5)
        if !learned {
            let state = await read { (greeting.isFinished, greeting.isExecuting) }
            Issue.record(
                Comment(
                    rawValue: """
                        5 s after it was queued, the operation's dependent had not run\(Self.said(state)): the queue \
                        learns a finish only from didChangeValue(forKey: "isFinished"), after the change (hint: \
                        "Announce each change")
                        """))
        } else {
            #expect(
                log.events == ["Executing", "Dependent ran"],
                "the dependent must start only after finish(); what ran: \(log.events) (hint: \"Announce each change\")"
            )
        }
    }

    @Test("after finish(), the operation is finished and no longer executing")
    func stateAfterFinish() async {
        let operation = WatchedOperation()
        OperationQueue().addOperation(operation)
        guard await operation.finishing(within: 5) != nil,
            await operation.finishReturned.wait(seconds: 10)
        else { return }  // finishReturns says why
        let state = await read { (operation.isFinished, operation.isExecuting) }
        #expect(
            state?.0 == true && state?.1 == false,
            "once finish() had returned, the operation\(Self.said(state)): finished, and no longer executing (hint: \"Announce each change\")"
        )
    }

    @Test(
        "another thread reads the getters all along, ordered with finish() by nothing but the lock: the race detector's run sees state touched outside it"
    )
    func gettersReadAllAlong() async {
        // One operation per getter: a reader thread reads that getter in a loop from before
        // start() until after finish(). Only relaxed counts pass between it and the operation's
        // threads: they order nothing for ThreadSanitizer, so its reads and finish()'s writes
        // are ordered by the operation's lock or not at all. At each of finish()'s calls,
        // finish() waits until the reader has read twice more: a read falls between each two
        // of its steps, whatever the machine's timing. (One getter at a time: the two flags
        // share a word of ThreadSanitizer's memory, which keeps only four accesses to it; reads
        // of the other flag could push finish()'s write out before the reader reads again.)
        for getter in [\Operation.isExecuting, \Operation.isFinished] {
            guard await Self.readAllAlong(getter) else { return }
        }
    }

    /// One run of `gettersReadAllAlong`, its reader reading `getter`; false, with the problem
    /// recorded, if it went wrong.
    static func readAllAlong(_ getter: KeyPath<Operation, Bool> & Sendable) async -> Bool {
        let reads = UnorderedCount()
        let stop = UnorderedCount()
        let operation = PausedAtEachCall(reads: reads)
        let readerStopped = Flag()
        Thread {
            while stop.value == 0 {
                _ = operation[keyPath: getter]
                reads.increment()
            }
            readerStopped.raise()
        }.start()
        defer { stop.increment() }
        Thread { operation.start() }.start()
        guard await operation.mainCalled.wait(seconds: 5) else {
            Issue.record(
                "5 s after start() was called, it had not called main(): does start() still call main()? (hint: \"Announce each change\")"
            )
            return false
        }
        let finishReturned = Flag()
        Thread {
            operation.finish()
            finishReturned.raise()
        }.start()
        guard await finishReturned.wait(seconds: 10) else { return false }  // finishReturns says where it waits
        stop.increment()
        guard await readerStopped.wait(seconds: 5) else {
            Issue.record(
                "once finish() had returned, a thread reading the getters was still waiting 5 s later: is the lock they take still held? (hint: \"Outside the lock\")"
            )
            return false
        }
        let state = await read { (operation.isFinished, operation.isExecuting) }
        #expect(
            state?.0 == true && state?.1 == false,
            "once finish() had returned, the operation\(Self.said(state)): finished, and no longer executing (hint: \"Announce each change\")"
        )
        return true
    }

    /// ", which said isFinished = …, isExecuting = …" for what the getters said, or that they did not answer.
    static func said(_ state: (Bool, Bool)?) -> String {
        guard let (finished, executing) = state else { return ", whose getters did not answer within 2 s" }
        return ", which said isFinished = \(finished), isExecuting = \(executing)"
    }
}

/// The exercise's operation, watched: `main()` calls `finish()` on a thread of its own (or, with
/// `finishesInsideMain`, on the queue's thread, before `main()` returns), and the watch records
/// every announcement, `start()`'s and `finish()`'s.
private final class WatchedOperation: AnnouncingOperation, @unchecked Sendable {
    // @unchecked Sendable: thread-safe flags; `watch` and `threads` only touched under `lock`.
    let finishesInsideMain: Bool
    let finishReturned = Flag()
    let startReturned = Flag()
    private let finishCalled = Flag()
    private let lock = NSLock()
    private var watch: AnnouncementWatch?
    private var threads: [ThreadIdentity: String] = [:]
    private var finishingThread: ThreadIdentity?

    init(finishesInsideMain: Bool = false) {
        self.finishesInsideMain = finishesInsideMain
        super.init()
        watch = AnnouncementWatch(of: self)
    }

    /// The threads the test knows, for messages.
    var threadNames: [ThreadIdentity: String] { lock.withLock { threads } }

    /// Whether `finish()` made this call (on its thread, or with `finishesInsideMain` on the
    /// queue's after `main()` began: then every call it made came after start()'s).
    func madeByFinish(_ event: AnnouncementWatch.Event) -> Bool {
        lock.withLock { event.thread == finishingThread }
    }

    /// The code that made a call, for messages.
    func place(_ event: AnnouncementWatch.Event) -> String { madeByFinish(event) ? "finish()" : "start()" }

    /// The watch (of every call from the operation's creation), once `finish()` is about to be
    /// called; nil if it was not within `seconds`.
    func finishing(within seconds: Double) async -> AnnouncementWatch? {
        guard await finishCalled.wait(seconds: seconds) else { return nil }
        return lock.withLock { watch }
    }

    override func start() {
        super.start()
        startReturned.raise()
    }

    override func main() {
        lock.withLock { threads[.current] = "the thread that ran start()" }
        if finishesInsideMain {
            finishWatched()
        } else {
            Thread { self.finishWatched() }.start()
        }
    }

    private func finishWatched() {
        lock.withLock {
            threads[.current] = "the thread that called finish()"
            finishingThread = .current
        }
        finishCalled.raise()
        finish()
        finishReturned.raise()
    }

    #if !os(Linux)
        // NSObject's methods, which a subclass can override on a Mac (on Linux, TestSupport sees
        // the calls without them).
        override func willChangeValue(forKey key: String) {
            AnnouncementWatch.announce(.will, key, by: self) { super.willChangeValue(forKey: key) }
        }

        override func didChangeValue(forKey key: String) {
            AnnouncementWatch.announce(.did, key, by: self) { super.didChangeValue(forKey: key) }
        }
    #endif
}

/// An operation whose `main()` only says it was called, so that a test calls `finish()` when it
/// chooses; at each of its announcements it waits until a reader thread has read a getter
/// twice more (`reads`), at most a second each time (then no more: the reader is stuck).
private final class PausedAtEachCall: AnnouncingOperation, @unchecked Sendable {
    // @unchecked Sendable: a flag and a count, thread-safe; `watch` set in init.
    let mainCalled = Flag()
    private let reads: UnorderedCount
    private var watch: AnnouncementWatch?

    init(reads: UnorderedCount) {
        self.reads = reads
        super.init()
        let gaveUp = UnorderedCount()
        // The watch takes a lock of its own, but only on the announcing threads: the reader
        // never takes it, so it orders nothing between the reader and them.
        watch = AnnouncementWatch(of: self, readsGetters: false) { _ in
            guard gaveUp.value == 0 else { return }
            let target = reads.value + 2
            let deadline = DispatchTime.now() + boundStretch
            while reads.value < target {
                guard DispatchTime.now() < deadline else { return gaveUp.increment() }
                usleep(50)
            }
        }
    }

    override func main() { mainCalled.raise() }

    #if !os(Linux)
        // NSObject's methods, which a subclass can override on a Mac (on Linux, TestSupport sees
        // the calls without them).
        override func willChangeValue(forKey key: String) {
            AnnouncementWatch.announce(.will, key, by: self) { super.willChangeValue(forKey: key) }
        }

        override func didChangeValue(forKey key: String) {
            AnnouncementWatch.announce(.did, key, by: self) { super.didChangeValue(forKey: key) }
        }
    #endif
}

/// A count that threads share with no ordering between them: a relaxed atomic, which
/// ThreadSanitizer does not count as ordering (a lock or a semaphore would be), so two threads
/// that only share this stay unordered for it. Before macOS 15 (no `Synchronization`), a lock:
/// the test still runs, but the race detector sees less.
private final class UnorderedCount: Sendable {
    private let atomic: (any Sendable)?
    private let locked = NSLock()
    // nonisolated(unsafe): only touched under `locked`, and only where `atomic` is nil.
    nonisolated(unsafe) private var count = 0

    init() {
        if #available(macOS 15, iOS 18, *) { atomic = RelaxedCount() } else { atomic = nil }
    }

    var value: Int {
        if #available(macOS 15, iOS 18, *), let atomic = atomic as? RelaxedCount {
            return atomic.count.load(ordering: .relaxed)
        }
        return locked.withLock { count }
    }

    func increment() {
        if #available(macOS 15, iOS 18, *), let atomic = atomic as? RelaxedCount {
            atomic.count.add(1, ordering: .relaxed)
            return
        }
        locked.withLock { count += 1 }
    }
}

@available(macOS 15, iOS 18, *)
private final class RelaxedCount: Sendable {
    let count = Atomic<Int>(0)
}
