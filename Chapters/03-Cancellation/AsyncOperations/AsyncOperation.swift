import Foundation

/// The finished asynchronous base operation: chapter 2's hand-managed state plus chapter 3's
/// cancellation. Chapters 4–7 build on it.
///
/// Subclasses override `main()`, start their asynchronous work there, and call `finish()`
/// when it is done. To stop that work when the operation is cancelled, they override
/// `cancel()`, call `super.cancel()`, and stop it; the work then calls `finish()` as usual.
///
/// What it guarantees:
/// - **Cancelled before it starts:** `start()` moves it straight to finished without
///   calling `main()` (Foundation requires finished = true, executing = false even then).
/// - **Finishes once.** Only an executing operation can finish; a second `finish()`, or one
///   before `start()`, does nothing, not even post a notification. In particular `cancel()`
///   never marks a pending operation finished — the mistake that makes Foundation print
///   "went isFinished=YES without being started by the queue it is in" (chapter 3's README).
/// - **Thread-safe.** The state lives behind an `NSLock`; the notifications are posted
///   outside the lock, because Foundation reads the getters from inside `didChangeValue`.
open class AsyncOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: all mutable state (`state`, `isChanging`) is only read or written
    // under `lock`.
    private enum State {
        case ready, executing, finished
    }

    private let lock = NSLock()
    private var state = State.ready
    /// True while one caller announces a change: it claimed the change, so no other caller
    /// announces anything until the new state is stored.
    private var isChanging = false

    // The keys Foundation reacts to. Stored once: a variadic parameter would allocate an array
    // on every state change, a cost the benchmark sees.
    private static let executingKey = ["isExecuting"]
    private static let finishedKey = ["isFinished"]
    private static let bothKeys = ["isExecuting", "isFinished"]

    public override init() {}

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool { lock.withLock { state == .executing } }
    open override var isFinished: Bool { lock.withLock { state == .finished } }

    /// Runs `main()`, or finishes at once if the operation was cancelled before it started.
    ///
    /// Subclasses that override it must call `super.start()`. To act when the operation is
    /// cancelled before it starts, they override `cancelledBeforeStart()` rather than look at
    /// `isCancelled` here themselves: a `cancel()` can land between their look and this one.
    open override func start() {
        // Not super.start(): Operation.start() would mark us finished when main() returns.
        // isCancelled is read once: a cancel() that lands after this line is main()'s to handle.
        if isCancelled {
            cancelledBeforeStart()
            change(from: .ready, to: .finished, announcing: Self.finishedKey)
        } else if change(from: .ready, to: .executing, announcing: Self.executingKey) {
            main()
        }
    }

    /// Called by `start()` instead of `main()` when the operation was cancelled before it
    /// started, just before it finishes. A subclass that promises a result on every path
    /// records the cancellation's result here, so that whoever learns "finished" finds it.
    /// The default does nothing.
    open func cancelledBeforeStart() {}

    /// Subclasses start their asynchronous work here and call `finish()` when it is done.
    open override func main() {
        preconditionFailure("\(type(of: self)) must override main() and call finish() when its work is done")
    }

    /// Ends an executing operation: the queue, waiters and dependents learn it now.
    ///
    /// Safe to call from any thread, and more than once: only the first call of an executing
    /// operation has an effect. Subclasses that override it call `super.finish()`; chapter 6's
    /// result operation does, to insist on a result.
    open func finish() {
        change(from: .executing, to: .finished, announcing: Self.bothKeys)
    }

    /// Moves the state from `from` to `to` if it is `from` now, and announces `keys`;
    /// tells whether it moved.
    ///
    /// The lock is never held while announcing: on Linux `didChangeValue(forKey:)` drives the
    /// queue (there is no key-value observing) and reads `isFinished`/`isExecuting` before it
    /// returns. So the change happens in three steps: claim it under the lock, announce
    /// `willChange` and store the new state, announce `didChange`. Only the caller that
    /// claimed the change announces anything: a second `finish()` posts nothing at all,
    /// whether it comes later or at the same moment from another thread.
    @discardableResult
    private func change(from: State, to: State, announcing keys: [String]) -> Bool {
        let claimed = lock.withLock {
            guard state == from, !isChanging else { return false }
            isChanging = true
            return true
        }
        guard claimed else { return false }
        for key in keys { willChangeValue(forKey: key) }
        lock.withLock {
            state = to
            isChanging = false
        }
        for key in keys { didChangeValue(forKey: key) }
        return true
    }
}
