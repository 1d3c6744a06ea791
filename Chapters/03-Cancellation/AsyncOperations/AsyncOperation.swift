import Foundation

/// The finished asynchronous base operation: chapter 2's hand-managed state plus chapter 3's
/// cancellation. Chapters 4–7 build on it.
///
/// Subclasses override `main()`, start their asynchronous work there, and call `finish()`
/// when it is done. To stop that work when the operation is cancelled, they register a
/// handler with `onCancel(_:)` (in `main()`, once the work exists); the work then calls
/// `finish()` as usual.
///
/// What it guarantees:
/// - **Cancelled before it starts:** `start()` moves it straight to finished without
///   calling `main()` (Foundation requires finished = true, executing = false even then).
///   It then stays alive until its dependencies have finished — the barrier blocks of its
///   queue included: Foundation keeps the operations that depend on an operation as
///   *unretained* pointers, and one freed while its dependency still runs makes that
///   dependency crash when it finishes (`keepAliveUntilDependenciesFinish(in:)`).
/// - **Starts once.** A second `start()` does nothing, whatever happened in between.
///   Started by hand before its dependencies have finished, it traps, as Foundation's own
///   `start()` does. Started by its queue after a dependency was added too late (Apple: a
///   dependency added after the operation was queued may not prevent it from running), it
///   runs, as Foundation's own operations do, and stays alive until that dependency finished
///   — as it does for a dependency added once it has started, or finished. The two are told apart by `OperationQueue.current`: a start by hand from a queue's
///   thread, or from the main thread (the main queue's), is taken for the queue's and runs.
/// - **Only its queue starts an operation in a queue.** On Linux, a queue that starts an
///   operation already started by hand traps, naming the mistake. An operation started by
///   hand while it waits in a (suspended) queue cannot be told apart from one in no queue:
///   Foundation prints "went isFinished=YES without being started by the queue it is in",
///   and its queue may crash later. Never call `start()` on an operation you have queued.
/// - **Finishes once.** Only an executing operation can finish; a second `finish()`, or one
///   before `start()`, does nothing, not even post a notification. In particular `cancel()`
///   never marks a pending operation finished — the mistake that makes Foundation print
///   "went isFinished=YES without being started by the queue it is in" (chapter 3's README).
///   If `finish()` comes before `main()` (from a `cancel()` override, say), `main()` is not
///   called.
/// - **A cancel that comes too late changes nothing.** From the moment finishing begins,
///   `cancel()` is ignored: `isCancelled` stays false and no cancellation handler runs, so
///   a result recorded while finishing never contradicts `isCancelled`.
/// - **Thread-safe.** The state lives behind an `NSLock`; the notifications are posted
///   outside the lock, because Foundation reads the getters from inside `didChangeValue`.
open class AsyncOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: all mutable state (`state`, `cancelled`, `cancelHandlers`) is only
    // read or written under `lock`.

    /// Where the operation is in its life. Only `enter(_:)` changes it, along these arrows:
    ///
    ///     ready ─start()─▶ starting ─"isExecuting" stored─▶ executing ─finish()─▶ finishing(executing: true)
    ///     ready ─start(), cancelled─▶ finishing(executing: false)
    ///     finishing ─"isFinished" stored─▶ finished(announced: false) ─queue told─▶ finished(announced: true)
    ///
    /// `starting` and `finishing` are claims: the one caller that made the claim announces the
    /// change, and no other `start()` or `finish()` does anything meanwhile.
    private enum State: Equatable {
        /// Not started. A `cancel()` makes `start()` finish it without calling `main()`.
        case ready
        /// `start()` claimed the run and is announcing "isExecuting".
        case starting
        /// `main()` runs (or is about to); the first `finish()` claims the end.
        case executing
        /// A finish was claimed: `willFinish()` runs, `cancel()` changes nothing from here on.
        /// `executing`: whether the operation ran (`isExecuting` stays true until "finished").
        case finishing(executing: Bool)
        /// `isFinished` is true. `announced`: Foundation has been told (its `didChangeValue`
        /// returned: dependents updated, the queue informed).
        case finished(announced: Bool)

        /// The arrows above: the changes `enter(_:)` allows.
        func mayBecome(_ next: State) -> Bool {
            switch (self, next) {
            case (.ready, .starting), (.ready, .finishing(executing: false)), (.starting, .executing),
                (.executing, .finishing(executing: true)), (.finishing, .finished(announced: false)),
                (.finished(announced: false), .finished(announced: true)):
                true
            default:
                false
            }
        }

        /// Whether a `cancel()` still counts: not once finishing has begun.
        var acceptsCancel: Bool {
            switch self {
            case .ready, .starting, .executing: true
            case .finishing, .finished: false
            }
        }
    }

    private let lock = NSLock()
    private var state = State.ready
    private var cancelled = false
    /// Run by the first effective `cancel()`; dropped when the operation finishes.
    private var cancelHandlers: [@Sendable () -> Void] = []

    // The keys Foundation reacts to. Stored once: a variadic parameter would allocate an array
    // on every state change, a cost the benchmark sees.
    private static let executingKey = ["isExecuting"]
    private static let finishedKey = ["isFinished"]
    private static let bothKeys = ["isExecuting", "isFinished"]

    public override init() {}

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool {
        lock.withLock {
            switch state {
            case .executing, .finishing(executing: true): true
            default: false
            }
        }
    }
    open override var isFinished: Bool {
        lock.withLock {
            if case .finished = state { return true }
            return false
        }
    }
    open override var isCancelled: Bool { lock.withLock { cancelled } }

    /// The one place where `state` changes. Call it under `lock`.
    private func enter(_ next: State) {
        assert(state.mayBecome(next), "\(type(of: self)): no way from \(state) to \(next)")
        state = next
    }

    /// Runs `main()`, or finishes at once if the operation was cancelled before it started.
    ///
    /// Subclasses that override it must call `super.start()`. To act when the operation is
    /// cancelled before it starts, they override `cancelledBeforeStart()` rather than look at
    /// `isCancelled` here themselves: a `cancel()` can land between their look and this one.
    open override func start() {
        // Not super.start(): Operation.start() would mark us finished when main() returns.
        enum Next {
            case secondStart(State)
            case finishCancelled
            case run
        }
        // One look, under the lock, decides: a cancel() that lands after it is main()'s to handle.
        let next: Next = lock.withLock {
            guard state == .ready else { return .secondStart(state) }
            if cancelled {
                enter(.finishing(executing: false))
                return .finishCancelled
            }
            enter(.starting)
            return .run
        }
        switch next {
        case .secondStart(let seen):
            checkSecondStart(seen)
        case .finishCancelled:
            cancelledBeforeStart()
            keepAliveUntilDependenciesFinish(in: OperationQueue.current)
            willFinish()
            announce(Self.finishedKey, storing: .finished(announced: false))
        case .run:
            // Read after the claim: a dependency added from here on is addDependency(_:)'s to
            // handle, one added before shows here. (Foundation's lock: not under ours.)
            if !isReady { startedBeforeDependenciesFinished() }
            announce(Self.executingKey, storing: .executing)
            // A finish() that came while "isExecuting" was announced ends it before main().
            if lock.withLock({ state == .executing }) { main() }
        }
    }

    /// A start while a dependency has not finished. By hand, it is a mistake, which Foundation's
    /// own `start()` traps on too. From the queue (the dependency was added after the queue had
    /// picked the operation), the operation runs, as Foundation's own do — and the dependency,
    /// which holds it unretained, must not outlive it.
    private func startedBeforeDependenciesFinished() {
        // A queue's thread knows its queue; a call by hand from a plain thread has none.
        guard let queue = OperationQueue.current else {
            preconditionFailure("\(self) was started before its dependencies finished")
        }
        keepAliveUntilDependenciesFinish(in: queue)
    }

    /// A second `start()` does nothing — unless, on Linux, it comes from a queue that picked the
    /// operation before someone started it by hand. Foundation then sets its own state of the
    /// operation back from finished to starting, which nothing else does; left alone, the queue
    /// would finish it a second time (its completion block runs twice).
    private func checkSecondStart(_ seen: State) {
        #if os(Linux)
            if seen == .finished(announced: true) && !super.isFinished && !super.isExecuting {
                preconditionFailure(
                    "\(self) was started by hand while a queue held it: only its queue starts an operation in a queue")
            }
        #endif
    }

    /// Adds a dependency, as Foundation does. Once the operation has started, the dependency can
    /// no longer hold it back (Apple: a dependency added after the operation was queued may not
    /// prevent it from running), but Foundation still makes the dependency hold it, unretained,
    /// until the dependency finishes: so the operation stays alive until then.
    open override func addDependency(_ operation: Operation) {
        super.addDependency(operation)
        // After Foundation's: a start() that claims the run later reads isReady, and sees it.
        let started = lock.withLock { state != .ready }
        if started { keepAliveUntilDependenciesFinish(in: nil) }
    }

    /// Called by `start()` instead of `main()` when the operation was cancelled before it
    /// started, just before it finishes. The default does nothing.
    open func cancelledBeforeStart() {}

    /// Called once, on every path to finished (cancelled before it started included), just
    /// before the queue learns it. `isCancelled` is final here: a `cancel()` that comes from
    /// now on changes nothing. A subclass that owes a result records it here, so that whoever
    /// learns "finished" finds it, and it never contradicts `isCancelled`. The default does
    /// nothing.
    open func willFinish() {}

    /// Subclasses start their asynchronous work here and call `finish()` when it is done.
    open override func main() {
        preconditionFailure("\(type(of: self)) must override main() and call finish() when its work is done")
    }

    /// Ends an executing operation: the queue, waiters and dependents learn it now.
    ///
    /// Safe to call from any thread, and more than once: only the first call of an executing
    /// operation has an effect. Operations that owe a result (chapters 5 and 6) seal it: they
    /// trap, and finish through their own `finish(with:)`.
    open func finish() {
        let claimed = lock.withLock {
            guard state == .executing else { return false }
            enter(.finishing(executing: true))
            return true
        }
        guard claimed else { return }
        willFinish()
        announce(Self.bothKeys, storing: .finished(announced: false))
    }

    /// Marks the operation cancelled, unless it is already finishing, and runs the handlers
    /// registered with `onCancel(_:)`, once.
    open override func cancel() {
        let handlers: [@Sendable () -> Void]? = lock.withLock {
            guard !cancelled, state.acceptsCancel else { return nil }
            cancelled = true
            defer { cancelHandlers = [] }
            return cancelHandlers
        }
        guard let handlers else { return }
        super.cancel()  // Foundation's own flag: a pending operation becomes ready at once
        for handler in handlers { handler() }
    }

    /// Runs `handler` once when the operation is cancelled — at once if it already is.
    ///
    /// The place to stop the work `main()` started: cancel a request, a task, an upload. The
    /// handler runs on the thread that called `cancel()` (or on this one), never under a lock
    /// of the operation's, so it may call `finish()`. A handler registered after finishing
    /// began never runs, and every handler is released when the operation finishes.
    public final func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = lock.withLock {
            if cancelled { return true }
            if state.acceptsCancel { cancelHandlers.append(handler) }
            return false
        }
        if runNow { handler() }
    }

    /// Stores the state that the caller claimed (`starting` or `finishing`), announcing `keys`
    /// around it; once finished, drops the cancellation handlers and records that Foundation
    /// was told.
    ///
    /// The lock is never held while announcing: on Linux `didChangeValue(forKey:)` drives the
    /// queue (there is no key-value observing) and reads `isFinished`/`isExecuting` before it
    /// returns. So a change happens in three steps: claim it under the lock (the caller),
    /// announce `willChange` and store the new state, announce `didChange`. Only the caller
    /// that claimed the change announces anything: a second `finish()` posts nothing at all,
    /// whether it comes later or at the same moment from another thread.
    private func announce(_ keys: [String], storing newState: State) {
        for key in keys { willChangeValue(forKey: key) }
        let dropped: [@Sendable () -> Void] = lock.withLock {
            enter(newState)
            guard case .finished = newState else { return [] }
            defer { cancelHandlers = [] }
            return cancelHandlers
        }
        for key in keys { didChangeValue(forKey: key) }
        if case .finished = newState { lock.withLock { enter(.finished(announced: true)) } }
        _ = dropped  // released here, outside the lock: a handler may hold the last reference to anything
    }
}
