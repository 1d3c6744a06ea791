import Foundation

/// The app's asynchronous base operation: subclasses start their work in `main()` and call
/// `finish()` when it is done.
///
/// ```swift
/// final class Upload: AppOperation, @unchecked Sendable {
///     override func main() {
///         let request = uploader.send(file) { _ in self.finish() }
///         whenCancelled { request.cancel() }
///     }
/// }
/// ```
///
/// `nonisolated`: the app's module isolates its types to the main actor by default, and an
/// operation runs on its queue's threads.
nonisolated open class AppOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: `state`, `cancelled` and `cancelHandler` are only touched under `lock`.
    private enum State: Equatable {
        case ready, starting, executing
        case finishing(ran: Bool)
        case finished
    }

    private let lock = NSLock()
    private var state = State.ready
    private var cancelled = false
    private var cancelHandler: (@Sendable () -> Void)?

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool {
        lock.withLock { state == .executing || state == .finishing(ran: true) }
    }
    open override var isFinished: Bool { lock.withLock { state == .finished } }
    open override var isCancelled: Bool { lock.withLock { cancelled } }

    open override func start() {
        // Claimed under the lock; announced outside it, because Foundation reads the getters
        // while a change is announced.
        let runs: Bool? = lock.withLock {
            guard state == .ready else { return nil }  // started twice
            state = cancelled ? .finishing(ran: false) : .starting
            return !cancelled
        }
        if runs == true {
            willChangeValue(forKey: "isExecuting")
            lock.withLock { state = .executing }
            didChangeValue(forKey: "isExecuting")
            main()
        } else if runs == false {
            finish(announcing: ["isFinished"])  // cancelled before it started: never executing
        }
    }

    /// Ends the operation; only the first call of an executing operation counts.
    public func finish() {
        let claimed = lock.withLock {
            guard state == .executing else { return false }
            state = .finishing(ran: true)
            return true
        }
        if claimed { finish(announcing: ["isExecuting", "isFinished"]) }
    }

    /// Marks the operation cancelled and runs the handler given to `whenCancelled(_:)`; a
    /// cancel that comes once it is finishing changes nothing.
    open override func cancel() {
        let handler: (@Sendable () -> Void)?? = lock.withLock {
            guard !cancelled, state == .ready || state == .starting || state == .executing else { return nil }
            cancelled = true
            defer { cancelHandler = nil }
            return .some(cancelHandler)
        }
        guard let handler else { return }
        super.cancel()
        handler?()
    }

    /// Runs `handler` when the operation is cancelled — at once if it already is.
    public func whenCancelled(_ handler: @escaping @Sendable () -> Void) {
        let now = lock.withLock {
            if !cancelled && state == .executing { cancelHandler = handler }
            return cancelled
        }
        if now { handler() }
    }

    /// Called just before the operation announces that it finished; `isCancelled` is final.
    open func willFinish() {}

    private func finish(announcing keys: [String]) {
        willFinish()
        for key in keys { willChangeValue(forKey: key) }
        lock.withLock {
            state = .finished
            cancelHandler = nil
        }
        for key in keys { didChangeValue(forKey: key) }
    }
}
