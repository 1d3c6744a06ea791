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
///   It then stays alive until its dependencies have finished: Foundation keeps the
///   operations that depend on an operation as *unretained* pointers, and one freed while
///   its dependency still runs makes that dependency crash when it finishes.
/// - **Starts once.** A second `start()` does nothing, whatever happened in between.
///   Starting an operation that is not ready (a dependency has not finished) traps, as
///   Foundation's own `start()` does.
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
    // @unchecked Sendable: all mutable state (`state`, `isChanging`, `isFinishing`,
    // `cancelled`, `cancelHandlers`) is only read or written under `lock`.
    private enum State {
        case ready, executing, finished
    }

    private let lock = NSLock()
    private var state = State.ready
    /// True while one caller announces a change: it claimed the change, so no other caller
    /// announces anything until the new state is stored.
    private var isChanging = false
    /// True from the moment a finish is claimed; `cancel()` changes nothing from then on.
    private var isFinishing = false
    private var cancelled = false
    /// Run by the first effective `cancel()`; dropped when the operation finishes.
    private var cancelHandlers: [@Sendable () -> Void] = []

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
    open override var isExecuting: Bool { lock.withLock { state == .executing } }
    open override var isFinished: Bool { lock.withLock { state == .finished } }
    open override var isCancelled: Bool { lock.withLock { cancelled } }

    /// Runs `main()`, or finishes at once if the operation was cancelled before it started.
    ///
    /// Subclasses that override it must call `super.start()`. To act when the operation is
    /// cancelled before it starts, they override `cancelledBeforeStart()` rather than look at
    /// `isCancelled` here themselves: a `cancel()` can land between their look and this one.
    open override func start() {
        // Not super.start(): Operation.start() would mark us finished when main() returns.
        reportStart()
        let ready = isReady  // Foundation's lock, not ours: read before taking ours
        enum Next { case nothing, finishCancelled, run, notReady }
        // One look, under the lock, decides: a cancel() that lands after it is main()'s to handle.
        let next: Next = lock.withLock {
            guard state == .ready, !isChanging else { return .nothing }  // a second start()
            if cancelled {
                isChanging = true
                isFinishing = true
                return .finishCancelled
            }
            guard ready else { return .notReady }
            isChanging = true
            return .run
        }
        switch next {
        case .nothing:
            return
        case .notReady:
            preconditionFailure("\(self) was started before its dependencies finished")
        case .finishCancelled:
            cancelledBeforeStart()
            keepAliveUntilDependenciesFinish()
            willFinish()
            announce(.finished, Self.finishedKey)
        case .run:
            announce(.executing, Self.executingKey)
            // A finish() that came while "isExecuting" was announced ends it before main().
            if lock.withLock({ state == .executing && !isFinishing }) { runMain() }
        }
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
            guard state == .executing, !isChanging else { return false }
            isChanging = true
            isFinishing = true
            return true
        }
        guard claimed else { return }
        willFinish()
        announce(.finished, Self.bothKeys)
    }

    /// Marks the operation cancelled, unless it is already finishing, and runs the handlers
    /// registered with `onCancel(_:)`, once.
    open override func cancel() {
        let handlers: [@Sendable () -> Void]? = lock.withLock {
            guard !cancelled, !isFinishing else { return nil }
            cancelled = true
            defer { cancelHandlers = [] }
            return cancelHandlers
        }
        guard let handlers else { return }
        reportCancelled()
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
            if !isFinishing { cancelHandlers.append(handler) }
            return false
        }
        if runNow { handler() }
    }

    /// Stores the state that the caller claimed (`isChanging`), announcing `keys` around it,
    /// and drops the cancellation handlers once finished.
    ///
    /// The lock is never held while announcing: on Linux `didChangeValue(forKey:)` drives the
    /// queue (there is no key-value observing) and reads `isFinished`/`isExecuting` before it
    /// returns. So a change happens in three steps: claim it under the lock (the caller),
    /// announce `willChange` and store the new state, announce `didChange`. Only the caller
    /// that claimed the change announces anything: a second `finish()` posts nothing at all,
    /// whether it comes later or at the same moment from another thread.
    private func announce(_ newState: State, _ keys: [String]) {
        for key in keys { willChangeValue(forKey: key) }
        let dropped: [@Sendable () -> Void] = lock.withLock {
            state = newState
            isChanging = false
            guard newState == .finished else { return [] }
            defer { cancelHandlers = [] }
            return cancelHandlers
        }
        reportState(executing: newState == .executing)  // before the queue learns it
        for key in keys { didChangeValue(forKey: key) }
        _ = dropped  // released here, outside the lock: a handler may hold the last reference to anything
    }

    /// Keeps this (cancelled, finishing) operation alive until every dependency has finished:
    /// each of them holds it unretained until then. A lifeline operation that depends on them
    /// holds it, and a queue of its own holds the lifeline.
    ///
    /// Every dependency, not only those whose `isFinished` is still false: a dependency
    /// reports finished a moment before Foundation has gone through its dependents, and
    /// `addDependency` waits for that (on Linux it takes the dependency's lock, which is held
    /// meanwhile). A dependency that is long finished just makes the lifeline ready at once.
    /// A queue per lifeline, because a queue (on Linux) looks at every operation waiting in it
    /// each time it starts one: thousands of lifelines in one queue would cost the square.
    private func keepAliveUntilDependenciesFinish() {
        let dependencies = self.dependencies
        guard !dependencies.isEmpty else { return }
        let queue = OperationQueue()
        queue.name = "AsyncOperationsPlayground.lifeline"
        let lifeline = BlockOperation {
            withExtendedLifetime(self) {}
            withExtendedLifetime(queue) {}  // nobody else keeps the queue
        }
        for dependency in dependencies { lifeline.addDependency(dependency) }
        queue.addOperation(lifeline)
        // Linux: a dependency that finishes while `addDependency` runs can leave the queue
        // with a stale "not ready" that it corrects only when it next looks for work; with
        // nothing else in it, make it look once more.
        queue.isSuspended = false
    }
}
