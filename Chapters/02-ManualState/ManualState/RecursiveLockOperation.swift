import Foundation

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
    private let whileHoldingTheLock: @Sendable () -> Void
    private let beforeReadingFinished: @Sendable () -> Void

    /// - Parameters:
    ///   - announcesUnderLock: true for the mistake; false announces after unlocking.
    ///   - whileHoldingTheLock: called by `finish()` with the lock held, before it announces
    ///     (a test holds the finishing thread there to make the deadlock certain).
    ///   - beforeReadingFinished: called by the `isFinished` getter before it takes the lock.
    public init(
        announcesUnderLock: Bool,
        whileHoldingTheLock: @escaping @Sendable () -> Void = {},
        beforeReadingFinished: @escaping @Sendable () -> Void = {}
    ) {
        self.announcesUnderLock = announcesUnderLock
        self.whileHoldingTheLock = whileHoldingTheLock
        self.beforeReadingFinished = beforeReadingFinished
    }

    public override var isAsynchronous: Bool { true }
    public override var isExecuting: Bool { lock.withLock { executing } }
    public override var isFinished: Bool {
        beforeReadingFinished()
        return lock.withLock { finished }
    }

    public override func start() {
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        DispatchQueue.global().async { self.finish() }
    }

    private func finish() {
        if announcesUnderLock {
            lock.withLock {
                whileHoldingTheLock()
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
                whileHoldingTheLock()
                executing = false
                finished = true
            }
            didChangeValue(forKey: "isExecuting")
            didChangeValue(forKey: "isFinished")
        }
    }
}
