import Foundation
import Recording

/// Chapter 2's asynchronous operation: it owns its lifecycle instead of letting
/// `Operation.start()` decide when it is finished.
///
/// - `start()` is overridden and never calls `super.start()`: the base implementation would
///   run `main()` and mark the operation finished as soon as `main()` returns (chapter 1).
/// - `isExecuting` and `isFinished` are computed from one stored state, read and written
///   under a lock, because the queue reads them from its own threads.
/// - Every change is announced with `willChangeValue(forKey:)` / `didChangeValue(forKey:)`
///   for the keys "isExecuting" and "isFinished", *after* the lock is released: on Linux,
///   `didChangeValue` calls back into the getters synchronously (see README).
/// - Subclasses override `main()`, start their asynchronous work there, and call `finish()`
///   when that work is done.
///
/// This version does not handle cancellation yet; chapter 3 adds it and finishes the base
/// operation that the later chapters reuse (`AsyncOperations.AsyncOperation`).
open class ManualStateOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: the only mutable state, `state`, is read and written under `lock`.
    private enum State {
        case ready, executing, finished
    }

    private let lock = NSLock()
    private var state = State.ready

    public override init() {
        super.init()
        Recorder.current?.register(self)  // the chapter's pictures, when recorded: see ChapterSupport
    }

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool { lock.withLock { state == .executing } }
    open override var isFinished: Bool { lock.withLock { state == .finished } }

    open override func start() {
        // Not super.start(): that would mark the operation finished when main() returns.
        Recorder.current?.record(.executing, self)  // the chapter's pictures; nil unless recorded
        change(to: .executing)
        main()
    }

    /// Subclasses start their asynchronous work here and call `finish()` when it is done.
    open override func main() {
        preconditionFailure("\(type(of: self)) must override main() and call finish() when its work is done")
    }

    /// Marks the operation finished; the queue, waiters and dependents learn it now.
    public func finish() {
        Recorder.current?.record(.finished, self)
        change(to: .finished)
    }

    private func change(to newState: State) {
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        lock.withLock { state = newState }
        // Outside the lock: didChangeValue reads isExecuting/isFinished before it returns.
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}
