import Foundation

// Ways to get chapter 2 wrong, each a runnable operation so that a test can show what
// happens; ManualStateOperation is the version that gets them right. The first two share the
// flags below and differ from the right version only in how they announce the change.

/// Two flags behind a lock, and the getters the queue reads. The subclasses set the flags.
public class LockedFlagsOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: `executing` and `finished` are read and written under `lock`.
    fileprivate let lock = NSLock()
    fileprivate var executing = false
    fileprivate var finished = false

    public override var isAsynchronous: Bool { true }
    public override var isExecuting: Bool { lock.withLock { executing } }
    public override var isFinished: Bool { lock.withLock { finished } }

    /// Announces the change with both calls: on Darwin, key-value observing notifies
    /// observers only of a `didChangeValue` that a `willChangeValue` came before.
    fileprivate func markExecuting() {
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
    }
}

/// Announces its changes while still holding the lock that its getters take.
///
/// On Linux, `didChangeValue(forKey: "isExecuting")` — the first of the two announcements in
/// `finish()` — reads `isExecuting` before it returns; the getter waits for the lock that
/// `finish()` is holding, and the thread that called `finish()` never comes back. It never
/// reaches the "isFinished" announcement. On Darwin, key-value observers read the getters
/// the same way (inferred from how observing works; not run on a Mac).
public final class NotifyingUnderLockOperation: LockedFlagsOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only `let`s to the superclass, whose flags are locked.
    private let announcing: @Sendable (String) -> Void
    private let finishReturned: @Sendable () -> Void

    /// - Parameters:
    ///   - announcing: called with the key just before each `didChangeValue(forKey:)`.
    ///   - finishReturned: called after `finish()` returns — which it never does.
    public init(
        announcing: @escaping @Sendable (String) -> Void = { _ in },
        finishReturned: @escaping @Sendable () -> Void
    ) {
        self.announcing = announcing
        self.finishReturned = finishReturned
    }

    public override func start() {
        markExecuting()
        DispatchQueue.global().async {
            self.finish()
            self.finishReturned()
        }
    }

    private func finish() {
        lock.lock()
        defer { lock.unlock() }
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        executing = false
        finished = true
        announcing("isExecuting")
        didChangeValue(forKey: "isExecuting")  // deadlock: reads isExecuting, which needs `lock`
        announcing("isFinished")
        didChangeValue(forKey: "isFinished")
    }
}

/// Finishes without announcing "isFinished": its `isFinished` turns true, but nobody is told.
///
/// On Linux the queue checks `isFinished` once, right after `start()` returned, and sees
/// false. From then on it waits for a "isFinished" notification that never comes: the
/// operation stays in the queue, its dependents are never ready, and
/// `waitUntilAllOperationsAreFinished()` never returns. (`waitUntilFinished()` on the
/// operation itself reads the flag, and returns.)
public final class SilentFinishOperation: LockedFlagsOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only `let`s to the superclass, whose flags are locked.
    private let workQueue: DispatchQueue
    private let started: @Sendable () -> Void
    private let workDone: @Sendable () -> Void

    /// - Parameters:
    ///   - workQueue: where the asynchronous work runs.
    ///   - started: called at the end of `start()`, once the work is scheduled.
    ///   - workDone: called once the work has run and the flags say finished.
    public init(
        on workQueue: DispatchQueue = .global(), started: @escaping @Sendable () -> Void = {},
        workDone: @escaping @Sendable () -> Void
    ) {
        self.workQueue = workQueue
        self.started = started
        self.workDone = workDone
    }

    public override func start() {
        markExecuting()
        workQueue.async {
            self.willChangeValue(forKey: "isExecuting")
            // The line that is missing: self.willChangeValue(forKey: "isFinished")
            self.lock.withLock {
                self.executing = false
                self.finished = true
            }
            self.didChangeValue(forKey: "isExecuting")
            // And its partner: self.didChangeValue(forKey: "isFinished")
            self.workDone()
        }
        started()
    }

    /// The forgotten announcement, so that a test can release the queue afterwards.
    public func announceFinishedLate() {
        willChangeValue(forKey: "isFinished")
        didChangeValue(forKey: "isFinished")
    }
}

/// Guards its flags with a *recursive* lock and announces "finished" while holding it — the
/// usual cure for the deadlock of `NotifyingUnderLockOperation`, since the getters that
/// `didChangeValue` reads on the same thread may now take the lock again.
///
/// It still deadlocks, with another thread: `waitUntilFinished()` holds Foundation's wait
/// condition while it reads `isFinished`, which needs this lock; the finishing thread holds
/// this lock while `didChangeValue(forKey: "isFinished")` takes the wait condition to wake the
/// waiters (swift-corelibs-foundation's `Operation.swift`). Two locks taken in opposite orders.
public final class RecursiveLockOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: `executing` and `finished` are read and written under `lock`.
    private let lock = NSRecursiveLock()
    private var executing = false
    private var finished = false
    private let announcesUnderLock: Bool

    /// - Parameter announcesUnderLock: true for the mistake; false announces after unlocking.
    public init(announcesUnderLock: Bool) {
        self.announcesUnderLock = announcesUnderLock
    }

    public override var isAsynchronous: Bool { true }
    public override var isExecuting: Bool { lock.withLock { executing } }
    public override var isFinished: Bool { lock.withLock { finished } }

    public override func start() {
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        DispatchQueue.global().async { self.finish() }
    }

    private func finish() {
        if announcesUnderLock {
            lock.withLock {
                willChangeValue(forKey: "isExecuting")
                willChangeValue(forKey: "isFinished")
                executing = false
                finished = true
                didChangeValue(forKey: "isExecuting")
                didChangeValue(forKey: "isFinished")  // takes the wait condition, holding `lock`
            }
        } else {
            willChangeValue(forKey: "isExecuting")
            willChangeValue(forKey: "isFinished")
            lock.withLock {
                executing = false
                finished = true
            }
            didChangeValue(forKey: "isExecuting")
            didChangeValue(forKey: "isFinished")
        }
    }
}
