import Foundation
import Synchronization

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
///   before `start()`, does nothing. In particular `cancel()` never marks a pending operation
///   finished — the mistake that makes Foundation print "went isFinished=YES without being
///   started by the queue it is in" (chapter 3's README).
/// - **Thread-safe.** The state lives in a `Mutex`; the notifications are posted after the
///   lock is released, because Foundation reads the getters from inside `didChangeValue`.
open class AsyncOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is `state`, which is a Mutex.
    private enum State {
        case ready, executing, finished
    }

    private let state = Mutex(State.ready)

    public override init() {}

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool { state.withLock { $0 == .executing } }
    open override var isFinished: Bool { state.withLock { $0 == .finished } }

    /// Runs `main()`, or finishes at once if the operation was cancelled before it started.
    ///
    /// Subclasses that override it must call `super.start()`.
    open override func start() {
        // Not super.start(): Operation.start() would mark us finished when main() returns.
        if isCancelled {
            change(from: .ready, to: .finished, announcing: "isFinished")
        } else if change(from: .ready, to: .executing, announcing: "isExecuting") {
            main()
        }
    }

    /// Subclasses start their asynchronous work here and call `finish()` when it is done.
    open override func main() {
        preconditionFailure("\(type(of: self)) must override main() and call finish() when its work is done")
    }

    /// Ends an executing operation: the queue, waiters and dependents learn it now.
    ///
    /// Safe to call from any thread, and more than once: only the first call of an executing
    /// operation has an effect.
    public final func finish() {
        change(from: .executing, to: .finished, announcing: "isExecuting", "isFinished")
    }

    /// Moves the state from `from` to `to` if it is `from` now, and announces `keys`;
    /// tells whether it moved.
    ///
    /// The lock is held only for the check-and-set. The notifications come before and after
    /// it, never inside: on Linux `didChangeValue(forKey:)` drives the queue (there is no
    /// key-value observing) and reads `isFinished`/`isExecuting` before it returns.
    /// `willChangeValue` is a no-op on Linux; Darwin's key-value observing wants the pair
    /// around the change, so it is posted even when the state turns out not to move.
    @discardableResult
    private func change(from: State, to: State, announcing keys: String...) -> Bool {
        for key in keys { willChangeValue(forKey: key) }
        let moved = state.withLock { current in
            guard current == from else { return false }
            current = to
            return true
        }
        for key in keys { didChangeValue(forKey: key) }
        return moved
    }
}
