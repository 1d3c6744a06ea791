import Foundation

/// Finishes without announcing "isFinished": its `isFinished` turns true, but nobody is told.
///
/// On Linux the queue checks `isFinished` once, right after `start()` returned, and sees
/// false. From then on it waits for a "isFinished" notification that never comes: the
/// operation stays in the queue, its dependents are never ready, and
/// `waitUntilAllOperationsAreFinished()` never returns. So does a `waitUntilFinished()` — or
/// `addOperations(_:waitUntilFinished: true)` — that was already waiting when the flag flipped:
/// it read false, and nothing wakes it. Only a wait that begins after the flip reads true and
/// returns at once.
open class SilentFinishOperation: LockedFlagsOperation, @unchecked Sendable {
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
