import Foundation

// Keeping an operation alive until nothing holds it unretained any more.
//
// Foundation keeps the operations that depend on an operation as unretained pointers, and
// walks them when that operation finishes. An operation that finishes before its
// dependencies — cancelled: a cancelled operation is ready at once, whatever its
// dependencies — and is then freed leaves a dangling pointer behind: the dependency follows
// it when it finishes, and the process crashes.
//
// Two kinds of dependency hold it:
// - the ones `dependencies` lists, which may be in any queue;
// - the barrier blocks (`addBarrierBlock`) that were pending in its queue when it was added:
//   the queue made it depend on them, and on Linux `dependencies` leaves them out.
// One keeper per kind holds the operation. The first depends on the listed dependencies and
// waits alone in a queue of its own. The second is added to the operation's own queue with no
// dependency of its own: the queue orders it after its barrier blocks, as it orders every
// operation added after one — it depends on those still pending, and a barrier already handed
// to Dispatch runs as a Dispatch barrier, which everything the queue sends off later waits for.
//
// `AsyncOperation` needs them only in two cases: cancelled once its dependencies had all
// finished (the first keeper, until Foundation has walked them), or while one of them still
// ran, where a barrier may hide (the second). Otherwise it lets go of its listed dependencies,
// and a cancelled one behind a pending barrier waits for the barrier (AsyncOperation.swift).
// The keepers are also for operations of other classes (chapter 5's awaiting code cancels
// `BlockOperation`s too).

extension Operation {
    /// Keeps this operation alive until every operation that may hold it unretained has
    /// finished: its dependencies, and the barrier blocks of `queue` it waited for.
    ///
    /// Call it when the operation finishes — or is about to — while a dependency may still be
    /// unfinished. `queue` is the queue that holds (or held) it, if a barrier block of that
    /// queue may hold it; without a queue, only the listed dependencies are waited for.
    ///
    /// Limits: the keeper in `queue` waits its turn there — while `queue` is suspended, it
    /// (and the operation) stays, and `operationCount` counts it. On a queue whose
    /// `underlyingQueue` is a global (or otherwise non-barrier) Dispatch queue, Dispatch
    /// ignores the barrier flag, so a barrier block already handed to Dispatch does not hold
    /// the keeper back.
    public func keepAliveUntilDependenciesFinish(in queue: OperationQueue?) {
        keepAlive(until: dependencies, orTheBarriersOf: queue)
    }

    /// The same, for the dependencies given.
    func keepAlive(until dependencies: [Operation], orTheBarriersOf queue: OperationQueue?) {
        if !dependencies.isEmpty {
            // A queue per keeper: a queue (on Linux) looks at every operation waiting in it
            // each time it starts one, so thousands of keepers in one queue would cost the square.
            let own = OperationQueue()
            own.name = "AsyncOperationsPlayground.keeper"
            let keeper = Keeper(holding: [self, own])  // nobody else holds `own`
            // Every dependency, not only those whose `isFinished` is still false: a dependency
            // reports finished a moment before Foundation has walked its dependents, and
            // `addDependency` waits for that walk (on Linux it takes the same lock).
            for dependency in dependencies { keeper.addDependency(dependency) }
            own.addOperation(keeper)
            // Linux: a dependency that finishes while `addDependency` runs can leave the queue
            // with a stale "not ready" that it corrects only when it next looks for work; with
            // nothing else in it, make it look once more.
            own.isSuspended = false
        }
        if let queue {
            // No dependency of its own, so it is never ready too soon, and the queue adds the
            // barrier dependencies under its lock (the stale "not ready" above cannot happen).
            // The highest priority: on a serial queue it goes next, not behind every operation
            // already waiting.
            let keeper = Keeper(holding: [self])
            keeper.queuePriority = .veryHigh
            queue.addOperation(keeper)
        }
    }
}

/// Holds objects until its queue starts it; then lets go of them and finishes.
///
/// It ignores `cancel()`: `cancelAllOperations()` on the queue it waits in must not make it
/// let go early (a cancelled operation is ready at once). It overrides `start()`, so
/// `OperationQueue.progress` does not count it.
final class Keeper: Operation, @unchecked Sendable {
    // @unchecked Sendable: `held` and `done` are only touched under `lock`.
    private let lock = NSLock()
    private var held: [AnyObject]
    private var done = false

    init(holding objects: [AnyObject]) {
        held = objects
        super.init()
        name = "AsyncOperationsPlayground.keeper"
    }

    override var isFinished: Bool { lock.withLock { done } }

    override func start() {
        let released: [AnyObject] = lock.withLock {
            defer { held = [] }
            return held
        }
        willChangeValue(forKey: "isFinished")
        lock.withLock { done = true }
        didChangeValue(forKey: "isFinished")
        // Released here, after Foundation has learned "finished": the last reference to the
        // kept operation (or to this keeper's own queue) may go with it.
        withExtendedLifetime(released) {}
    }

    override func cancel() {}
}
