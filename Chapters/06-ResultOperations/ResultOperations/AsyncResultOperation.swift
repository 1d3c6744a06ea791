import AsyncOperations
import Foundation

/// An asynchronous operation that ends with a typed `Result` on every path.
///
/// Subclasses override `main()`, start their work, and call `finish(with:)`. To stop that
/// work when cancelled, they register a handler with `onCancel(_:)` in `main()`, which stops
/// the work and may call `finish(with:)` itself.
///
/// The rules:
/// - **A result on every path.** Cancelled before it starts: the result is the
///   cancellation's failure. Cancelled while it runs: when the work finishes, the result is
///   the cancellation's failure, whatever the work passed. Finished: the work's result.
/// - **Set once.** The first `finish(with:)` decides; later calls are ignored and return
///   false (a response racing a timeout is not a crash). The first cancellation's error
///   decides too. A cancellation that comes once `finish(with:)` has begun finishing
///   changes nothing: `isCancelled` stays false and the work's result stands.
/// - **Plain `cancel()` works** (the queue calls it): it means `cancel(with: .cancelled)`.
/// - **Plain `finish()` traps**: finishing without a result is a programming error, caught
///   on the spot.
open class AsyncResultOperation<Success: Sendable, Failure: CancellableFailure>: AsyncOperation,
    ResultProducing, @unchecked Sendable
{
    // @unchecked Sendable: `pending`, `outcome` and `cancellation` are only touched under
    // `shared`'s lock; the rest is the thread-safe superclass.
    private let shared = Locked<
        (pending: Result<Success, Failure>?, outcome: Result<Success, Failure>?, cancellation: Failure?)
    >((nil, nil, nil))

    public override init() {}

    /// The result, once the operation has finished; nil before, even while it is finishing.
    public var result: Result<Success, Failure>? {
        // Recorded in willFinish(), just before "finished" is stored: given out only once it
        // is. AsyncOperation's isFinished, since a subclass's override may read `result`.
        super.isFinished ? shared.withLock { $0.outcome } : nil
    }

    /// Ends the operation with `result` — or with the cancellation's failure if it was
    /// cancelled. Returns false, and changes nothing, if the operation already had a result
    /// or is not executing (called before `start()`).
    @discardableResult
    public final func finish(with result: Result<Success, Failure>) -> Bool {
        guard isExecuting else { return false }
        let first = shared.withLock { state in
            guard state.pending == nil else { return false }
            state.pending = result
            return true
        }
        guard first else { return false }
        super.finish()
        return true
    }

    /// Records the result just before the queue learns "finished": `isCancelled` is final
    /// by now, so the result cannot contradict it.
    public final override func willFinish() {
        let cancelled = isCancelled
        shared.withLock { state in
            if cancelled {
                state.outcome = .failure(state.cancellation ?? .cancelled)
            } else if let pending = state.pending {
                state.outcome = pending
            } else {
                preconditionFailure("\(type(of: self)) finished without a result")
            }
        }
    }

    /// Traps: an `AsyncResultOperation` finishes with a result. Call `finish(with:)`.
    public final override func finish() {
        preconditionFailure("\(type(of: self)) finishes with a result: call finish(with:), not finish()")
    }

    /// Cancels with `.cancelled`. This is what `OperationQueue.cancelAllOperations()` calls.
    public final override func cancel() {
        cancel(with: .cancelled)
    }

    /// Cancels the operation; it will end with `.failure(error)`. Only the first
    /// cancellation's error counts, and none once the operation is finishing.
    public final func cancel(with error: Failure) {
        shared.withLock { state in
            if state.cancellation == nil { state.cancellation = error }
        }
        super.cancel()
    }
}
