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
/// - **Cancelled before it starts:** `start()` moves it straight to finished without calling
///   `main()` (Foundation requires finished = true, executing = false even then). `cancel()`
///   makes it ready at once, as Foundation's own operations: the dependencies it waits for
///   "are subsequently ignored" (Apple, `cancel()`). Except a barrier block of its queue:
///   behind a pending one it waits until the barrier block has run — Apple: operations added
///   after a barrier block "don't start until the block has completed" (`addBarrierBlock(_:)`)
///   — and then finishes; unless a dependency of its own still ran when it was cancelled
///   (below): then it finishes at once, and a keeper waits for the barrier instead.
/// - **Nothing it leaves behind follows a freed operation.** Foundation keeps the operations
///   that depend on an operation as *unretained* pointers: one freed while a dependency still
///   runs makes that dependency crash when it finishes. So an operation that no longer waits
///   for its dependencies — cancelled, or started — lets go of them (`dependencies` still
///   lists them, as Apple documents), and can be freed whether they ever run or not. A
///   barrier block cannot be let go of; the operation waits for it as above. Only when it
///   was cancelled while dependencies of its own still ran (a barrier block may hide behind
///   them: on Linux `dependencies` does not list barriers) does a small keeper in its queue
///   hold it until the queue's pending barrier blocks have run (`keepAlive(until:orTheBarriersOf:)`).
///   Cancelled once its dependencies had all finished, it keeps them listed with Foundation,
///   and a keeper in a private queue holds it until Foundation has walked them.
///   That keeper counts in the queue's `operationCount` until it runs, waits while the queue
///   is suspended, and is not made on Linux where its queue cannot be known: a queue whose
///   operations run on the main thread, its run loop serving it: there, an operation
///   cancelled with a running dependency behind a pending barrier block is freed too soon
///   (`MainThreadTests`). On a queue whose `underlyingQueue` is a global Dispatch queue, the
///   keeper waits only for barrier blocks not yet handed to Dispatch (which ignores the
///   barrier flag there): cancelled while such a barrier block runs, with a running
///   dependency, the operation can be freed too soon (read in swift-corelibs-foundation's
///   `Operation.swift`, not run).
/// - **Starts once.** A second `start()` does nothing, whatever happened in between.
///   Started by hand before its dependencies have finished, it traps, as Foundation's own
///   `start()` does. Started by its queue after a dependency was added too late to hold it
///   back, it runs, as Foundation's own operations do (a dependency added once an operation
///   executes "has no practical effect": Apple, `addDependency(_:)`). The two are told apart
///   by asking `OperationQueue.current` whether it holds the operation. They cannot be told
///   apart from a thread of the queue that holds the operation (a block of that queue; for
///   the main queue, the main thread), nor, on Linux, from a block that the main thread runs
///   while its run loop runs: Linux answers the main queue there, whatever queue runs the
///   block. Such a start by hand runs.
/// - **Only its queue starts an operation in a queue.** On Linux, a queue that starts an
///   operation already started by hand traps, naming the mistake. An operation started by
///   hand while it waits in a (suspended) queue cannot be told apart from one in no queue: it
///   runs and finishes, and Foundation prints no warning (on Linux, its "isExecuting"
///   notification counts as a start: swift-corelibs-foundation's `Operation.swift`); the
///   queue, which never started it, may crash later. Never call `start()` on an operation
///   you have queued.
/// - **Finishes once.** Only an executing operation can finish; a second `finish()`, or one
///   before `start()`, does nothing, not even post a notification. In particular `cancel()`
///   never marks a pending operation finished — the mistake that makes Foundation print
///   "went isFinished=YES without being started by the queue it is in" (chapter 3's README).
///   A `finish()` that comes once `start()` has begun but before `main()` (from another
///   thread, say) ends the operation, and `main()` is not called.
/// - **A cancel that comes too late changes nothing.** From the moment finishing begins,
///   `cancel()` is ignored: `isCancelled` stays false and no cancellation handler runs, so
///   a result recorded while finishing never contradicts `isCancelled`.
/// - **Thread-safe.** The state lives behind an `NSLock`; the notifications are posted
///   outside the lock, because Foundation reads the getters from inside `didChangeValue`.
open class AsyncOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: all mutable state (`state`, `cancelled`, `cancelHandlers`,
    // `letGo`, `barrierMayHide`, `registering`) is only read or written under `lock`.

    /// Where the operation is in its life. Only `enter(_:)` changes it, along these arrows:
    ///
    ///     ready ─start()─▶ starting ─"isExecuting" stored─▶ executing ─finish()─▶ finishing(executing: true)
    ///     starting(finishRequested: false) ─finish()─▶ starting(finishRequested: true)
    ///     ready ─start(), cancelled─▶ finishing(executing: false)
    ///     finishing ─"isFinished" stored─▶ finished(announced: false) ─queue told─▶ finished(announced: true)
    ///
    /// `starting` and `finishing` are claims: the one caller that made the claim announces the
    /// change, and no other `start()` or `finish()` does anything meanwhile — a `finish()`
    /// while starting is remembered, and `start()` then finishes instead of calling `main()`.
    private enum State: Equatable {
        /// Not started. A `cancel()` makes `start()` finish it without calling `main()`.
        case ready
        /// `start()` claimed the run and is announcing "isExecuting". `finishRequested`: a
        /// `finish()` came meanwhile.
        case starting(finishRequested: Bool)
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
            case (.ready, .starting(finishRequested: false)), (.ready, .finishing(executing: false)),
                (.starting(finishRequested: false), .starting(finishRequested: true)), (.starting, .executing),
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
    /// Dependencies that Foundation no longer knows of, so that they do not hold the operation
    /// unretained: added once it no longer waits for them (cancelled, or started), or let go
    /// of then. `dependencies` lists them after Foundation's.
    private var letGo: [Operation] = []
    /// Set by a `cancel()` that let go of dependencies still running: a barrier block of the
    /// queue may hide behind them (Foundation's readiness counts both, and on Linux
    /// `dependencies` lists no barrier), so `start()` keeps the operation until the queue's
    /// barrier blocks have run.
    private var barrierMayHide = false
    /// How many `addDependency` calls are telling Foundation of a dependency right now.
    /// `cancel()` decides from Foundation's dependencies only when none is.
    private var registering = 0

    // The keys Foundation reacts to. Stored once: a variadic parameter would allocate an array
    // on every state change, a cost the benchmark sees.
    private static let executingKey = ["isExecuting"]
    private static let finishedKey = ["isFinished"]
    private static let bothKeys = ["isExecuting", "isFinished"]

    public override init() {
        super.init()
        reportCreated()  // to the chapters' pictures (Reporting.swift): nothing unless recorded
    }

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

    /// Foundation's dependencies, then those the operation let go of (which Foundation no
    /// longer knows): every operation ever added and not removed, as Apple documents.
    open override var dependencies: [Operation] {
        let letGo = lock.withLock { self.letGo }
        let known = super.dependencies
        guard !letGo.isEmpty else { return known }
        return known + letGo.filter { dependency in !known.contains { $0 === dependency } }
    }

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
        reportStart()  // to the chapters' pictures (Reporting.swift): nothing unless recorded
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
            enter(.starting(finishRequested: false))
            return .run
        }
        switch next {
        case .secondStart(let seen):
            checkSecondStart(seen)
        case .finishCancelled:
            cancelledBeforeStart()
            keepAliveWhileAnythingHoldsIt()
            announceFinish(ran: false)
        case .run:
            // Read after the claim: a dependency added from here on is addDependency(_:)'s to
            // handle, one added before shows here. (Foundation's lock: not under ours.)
            if !isReady { startedBeforeDependenciesFinished() }
            let starting = announce(Self.executingKey, storing: .executing)
            if starting == .starting(finishRequested: true) {
                // A finish() came while "isExecuting" was announced: it ends the operation
                // before main() — unless one that came since has ended it already.
                if lock.withLock({ claimFinish() }) { announceFinish(ran: true) }
            } else if lock.withLock({ state == .executing }) {
                runMain()
            }
        }
    }

    /// A start while a dependency has not finished. By hand, it is a mistake, which Foundation's
    /// own `start()` traps on too. From the queue (the dependency was added after the queue had
    /// picked the operation), the operation runs, as Foundation's own do — and lets go of its
    /// dependencies, which would otherwise hold it unretained until they finish.
    private func startedBeforeDependenciesFinished() {
        guard startedByItsQueue else {
            preconditionFailure(
                "\(self) was started by hand before its dependencies finished: add it to a queue, or start it once they have"
            )
        }
        letGo(of: super.dependencies)
    }

    /// Whether the queue that runs this thread holds the operation, so that this start is the
    /// queue's. A start by hand from such a thread cannot be told apart from it.
    private var startedByItsQueue: Bool {
        if startingQueue != nil { return true }
        #if os(Linux)
            // On the main thread, Linux's `OperationQueue.current` answers the main queue,
            // whatever queue runs there: a queue whose underlying queue is (or targets) the
            // main queue runs its operations on the main thread, from its run loop. Outside a
            // running run loop, no queue runs anything on the main thread.
            if Thread.isMainThread && RunLoop.main.currentMode != nil { return true }
        #endif
        return false
    }

    /// The queue that runs this thread, if it holds the operation.
    private var startingQueue: OperationQueue? {
        guard let queue = OperationQueue.current, queue.operations.contains(where: { $0 === self }) else {
            return nil
        }
        return queue
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

    /// Keeps a cancelled operation that is about to finish alive while something may still hold
    /// it unretained: dependencies Foundation still knows of (they had all finished when it was
    /// cancelled, but Foundation may not have walked them yet), and the barrier blocks of its
    /// queue when `cancel()` could not tell whether one was pending.
    private func keepAliveWhileAnythingHoldsIt() {
        let known = super.dependencies
        let queue = lock.withLock { barrierMayHide } ? startingQueue : nil
        if !known.isEmpty || queue != nil { keepAlive(until: known, orTheBarriersOf: queue) }
    }

    /// Adds a dependency, as Foundation does — except once the operation no longer waits for
    /// any (cancelled, or started): then Foundation is not told, so that the dependency does
    /// not hold it unretained, and `dependencies` lists it all the same.
    open override func addDependency(_ operation: Operation) {
        let waits = lock.withLock {
            guard !cancelled && state == .ready else { return false }
            registering += 1
            return true
        }
        guard waits else { return letGo(of: [operation]) }
        super.addDependency(operation)
        // A start() or cancel() that came meanwhile may have decided without it: let go.
        let late = lock.withLock {
            registering -= 1
            return cancelled || state != .ready
        }
        if late { letGo(of: [operation]) }
    }

    /// Removes a dependency, whether Foundation still knows it or the operation let go of it.
    open override func removeDependency(_ operation: Operation) {
        lock.withLock { letGo.removeAll { $0 === operation } }
        super.removeDependency(operation)
    }

    /// Takes `dependencies` out of Foundation's hands: they no longer hold the operation,
    /// and `dependencies` still lists them.
    private func letGo(of dependencies: [Operation]) {
        guard !dependencies.isEmpty else { return }
        lock.withLock {
            for dependency in dependencies where !letGo.contains(where: { $0 === dependency }) {
                letGo.append(dependency)
            }
        }
        // Takes the dependency's own lock, so it also waits for a walk of its dependents
        // that is under way; from here on, it does not touch this operation.
        for dependency in dependencies { super.removeDependency(dependency) }
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
    /// operation has an effect (one while `start()` announces "executing" ends the operation
    /// instead of `main()`). Operations that owe a result (chapters 5 and 6) seal it: they
    /// trap, and finish through their own `finish(with:)`.
    open func finish() {
        let claimed = lock.withLock {
            if state == .starting(finishRequested: false) { enter(.starting(finishRequested: true)) }
            return claimFinish()
        }
        if claimed { announceFinish(ran: true) }
    }

    /// Claims the end of an executing operation; false if it is not executing, or another
    /// caller claimed it first. Call it under `lock`.
    private func claimFinish() -> Bool {
        guard state == .executing else { return false }
        enter(.finishing(executing: true))
        return true
    }

    /// For the caller that claimed finishing: `willFinish()`, then "isFinished" announced
    /// ("isExecuting" too if the operation `ran`).
    private func announceFinish(ran: Bool) {
        willFinish()
        announce(ran ? Self.bothKeys : Self.finishedKey, storing: .finished(announced: false))
    }

    /// Marks the operation cancelled, unless it is already finishing, and runs the handlers
    /// registered with `onCancel(_:)`, once.
    open override func cancel() {
        let cancelled: (handlers: [@Sendable () -> Void], pending: Bool)? = lock.withLock {
            guard !self.cancelled, state.acceptsCancel else { return nil }
            self.cancelled = true
            defer { cancelHandlers = [] }
            return (cancelHandlers, state == .ready)
        }
        guard let cancelled else { return }
        reportCancelled()
        if cancelled.pending {
            cancelWhilePending()
        } else {
            super.cancel()  // Foundation's own flag; the run already began
        }
        for handler in cancelled.handlers { handler() }
    }

    /// Foundation's `cancel()` makes a pending operation ready at once, whatever its
    /// dependencies — and they still hold it unretained. So it is called only when needed:
    /// - Nothing holds the operation back: it is ready already, and Foundation's `cancel()`
    ///   would change nothing but its own flag. Left out, which also spares the queue a look
    ///   for work per cancel, and spares Linux a deadlock: Foundation takes its queue's lock
    ///   twice when an operation it knows as cancelled is added behind a pending barrier block.
    /// - Only dependencies that have finished (a barrier block of its queue, which on Linux
    ///   `dependencies` does not list): left out as well. The barrier makes the operation
    ///   ready once it has run; then the queue starts it, and it finishes without `main()`.
    ///   On Darwin, whose readiness is Foundation's own business, the same reading only waits
    ///   for what Darwin waits for (inferred, not verified).
    /// - Dependencies that still run: the operation lets go of them, then Foundation's
    ///   `cancel()` makes it ready. A barrier may hide behind them, which `start()` takes
    ///   care of.
    /// An `addDependency` that starts from now on sees the cancel and does not tell Foundation;
    /// one that is telling it right now counts as a dependency that still runs.
    private func cancelWhilePending() {
        let registering = lock.withLock { self.registering }
        if registering == 0 && (super.isReady || super.dependencies.allSatisfy(\.isFinished)) {
            // What Foundation's cancel() would post, for key-value observers of isCancelled
            // (Darwin; Linux ignores the key).
            willChangeValue(forKey: "isCancelled")
            didChangeValue(forKey: "isCancelled")
            return
        }
        letGo(of: super.dependencies)
        lock.withLock { barrierMayHide = true }
        super.cancel()
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
    /// was told. Returns the state it replaced.
    ///
    /// The lock is never held while announcing: on Linux `didChangeValue(forKey:)` drives the
    /// queue (there is no key-value observing) and reads `isFinished`/`isExecuting` before it
    /// returns. So a change happens in three steps: claim it under the lock (the caller),
    /// announce `willChange` and store the new state, announce `didChange`. Only the caller
    /// that claimed the change announces anything: a second `finish()` posts nothing at all,
    /// whether it comes later or at the same moment from another thread.
    @discardableResult
    private func announce(_ keys: [String], storing newState: State) -> State {
        for key in keys { willChangeValue(forKey: key) }
        // Before the state is stored: from then on a reader (a `waitUntilFinished()` that has
        // not begun waiting yet) may see it and go on, and its report must come after this one.
        reportState(executing: newState == .executing)
        let (replaced, dropped): (State, [@Sendable () -> Void]) = lock.withLock {
            let replaced = state
            enter(newState)
            guard case .finished = newState else { return (replaced, []) }
            defer { cancelHandlers = [] }
            return (replaced, cancelHandlers)
        }
        for key in keys { didChangeValue(forKey: key) }
        if case .finished = newState { lock.withLock { enter(.finished(announced: true)) } }
        _ = dropped  // released here, outside the lock: a handler may hold the last reference to anything
        return replaced
    }
}
