// SPDX-License-Identifier: MIT
// Copyright (c) 2026 the AsyncOperationsPlayground authors: LICENSE, at the repository's root.
import Foundation

/// An operation whose work is asynchronous: it stays executing until ``finish()`` is called.
///
/// Subclass it, start the work in `main()`, and call ``finish()`` when the work is done, from
/// any thread. Register how to stop the work with ``onCancel(_:)``:
///
/// ```swift
/// final class DownloadOperation: AsyncOperation, @unchecked Sendable {
///     let url: URL
///     init(url: URL) { self.url = url }
///     override func main() {
///         let task = URLSession.shared.dataTask(with: url) { _, _, _ in self.finish() }
///         onCancel { task.cancel() }  // at once if the operation is already cancelled
///         task.resume()
///     }
/// }
/// ```
///
/// Cancelled before it starts, it finishes without `main()`; cancelled while it runs, it stays
/// executing until its work calls ``finish()``. A second ``finish()`` does nothing; a second
/// `start()` traps while it runs, as Foundation's does. Never call `start()` on an operation you
/// queued: it cannot tell that a queue holds it, and the queue goes wrong later. Otherwise it
/// behaves as Foundation's own operations do, Foundation's bugs included.
nonisolated open class AsyncOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: `state`, `cancelled` and `cancelHandlers` are only touched under `lock`.
    /// Where the operation is in its life. Only `enter(_:)` changes it, along these arrows:
    ///
    ///     ready ─start()─▶ starting ─"isExecuting" stored─▶ executing ─finish()─▶ finishing(executing: true)
    ///     starting(finishRequested: false) ─finish()─▶ starting(finishRequested: true)
    ///     ready ─start(), cancelled─▶ finishing(executing: false)
    ///     finishing ─"isFinished" stored─▶ finished
    ///
    /// `starting` and `finishing` are claims: only the caller that made one announces the change.
    /// A `finish()` while starting is remembered: `start()` then finishes instead of calling `main()`.
    enum State: Equatable {
        case ready, executing, finished
        case starting(finishRequested: Bool)
        case finishing(executing: Bool)

        /// The arrows above: the changes `enter(_:)` allows.
        func mayBecome(_ next: State) -> Bool {
            switch (self, next) {
            case (.ready, .starting(finishRequested: false)), (.ready, .finishing(executing: false)),
                (.starting(finishRequested: false), .starting(finishRequested: true)), (.starting, .executing),
                (.executing, .finishing(executing: true)), (.finishing, .finished):
                true
            default: false
            }
        }

        /// Whether a `cancel()` still counts: not once finishing has begun.
        var acceptsCancel: Bool {
            if case .finishing = self { return false }
            return self != .finished
        }
    }

    private let lock = NSLock()
    private var state = State.ready
    private var cancelled = false
    private var cancelHandlers: [@Sendable () -> Void] = []
    private static let executingKey = ["isExecuting"]  // stored once: an array literal allocates each time
    private static let finishedKey = ["isFinished"]
    private static let bothKeys = ["isExecuting", "isFinished"]

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool {
        lock.withLock { state == .executing || state == .finishing(executing: true) }
    }
    open override var isFinished: Bool { lock.withLock { state == .finished } }
    open override var isCancelled: Bool { lock.withLock { cancelled } }

    private func enter(_ next: State) {
        assert(state.mayBecome(next), "\(type(of: self)): no way from \(state) to \(next)")
        state = next
    }

    /// Runs `main()`, or finishes at once if the operation was cancelled before it started.
    ///
    /// Not `super.start()`, which would finish the operation when `main()` returns. A subclass
    /// that overrides it calls `super.start()`, and acts on an early cancel in ``cancelledBeforeStart()``.
    open override func start() {
        // One look under the lock decides; a cancel() that lands after it is main()'s to handle.
        let (seen, next) = lock.withLock {
            let seen = state
            if seen == .ready { enter(cancelled ? .finishing(executing: false) : .starting(finishRequested: false)) }
            return (seen, state)
        }
        guard seen == .ready else { return startedAgain(after: seen) }  // HandStartChecks.swift
        guard next == .starting(finishRequested: false) else {
            cancelledBeforeStart()
            return announceFinish(ran: false)
        }
        if !isReady { startedBeforeItsDependenciesFinished() }  // HandStartChecks.swift
        let replaced = announce(Self.executingKey, storing: .executing)
        if replaced == .starting(finishRequested: true) {
            if lock.withLock({ claimFinish() }) { announceFinish(ran: true) }
        } else if lock.withLock({ state == .executing }) {
            main()
        }
    }

    /// Called by `start()` instead of `main()` when the operation was cancelled before it started.
    open func cancelledBeforeStart() {}

    /// Called once on every path to finished, just before "isFinished" is stored.
    ///
    /// `isCancelled` is final here: the place to record a result that must agree with it.
    open func willFinish() {}

    /// Starts the asynchronous work; a subclass overrides it and calls ``finish()`` when done.
    open override func main() {
        preconditionFailure("\(type(of: self)) must override main() and call finish() when its work is done")
    }

    /// Ends an executing operation: its queue, waiters and dependents learn it now.
    ///
    /// Safe from any thread and more than once: only the first call counts, and the others post
    /// nothing. One that comes while `start()` is starting the operation ends it before `main()`.
    open func finish() {
        let claimed = lock.withLock {
            if state == .starting(finishRequested: false) { enter(.starting(finishRequested: true)) }
            return claimFinish()
        }
        if claimed { announceFinish(ran: true) }
    }

    // Claims the end of an executing operation; false if another caller did. Call it under `lock`.
    private func claimFinish() -> Bool {
        guard state == .executing else { return false }
        enter(.finishing(executing: true))
        return true
    }

    private func announceFinish(ran: Bool) {
        willFinish()
        announce(ran ? Self.bothKeys : Self.finishedKey, storing: .finished)
    }

    /// Marks the operation cancelled and runs the ``onCancel(_:)`` handlers, once.
    ///
    /// Ignored once finishing has begun. It never finishes a pending operation: `start()` does.
    open override func cancel() {
        let handlers: [@Sendable () -> Void]? = lock.withLock {
            guard !cancelled, state.acceptsCancel else { return nil }
            cancelled = true
            defer { cancelHandlers = [] }
            return cancelHandlers
        }
        guard let handlers else { return }
        super.cancel()  // Foundation's cancel: a pending operation is ready at once
        for handler in handlers { handler() }
    }

    /// Runs `handler` once when the operation is cancelled, or at once if it already is.
    ///
    /// The place to stop the work that `main()` started. It runs on the cancelling thread, never
    /// under the operation's lock, so it may call ``finish()``. Handlers are released at the finish.
    public final func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = lock.withLock {
            if cancelled { return true }
            if state.acceptsCancel { cancelHandlers.append(handler) }
            return false
        }
        if runNow { handler() }
    }

    // Stores the claimed state between the announcements, never under the lock: Foundation reads the getters there.
    @discardableResult
    private func announce(_ keys: [String], storing newState: State) -> State {
        for key in keys { willChangeValue(forKey: key) }
        let (replaced, dropped): (State, [@Sendable () -> Void]) = lock.withLock {
            let replaced = state
            enter(newState)
            guard newState == .finished else { return (replaced, []) }
            defer { cancelHandlers = [] }
            return (replaced, cancelHandlers)
        }
        for key in keys { didChangeValue(forKey: key) }
        _ = dropped  // released here, outside the lock: a handler may hold the last reference to anything
        return replaced
    }
}
