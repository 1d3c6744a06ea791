import AsyncOperations
import Foundation

/// An error type that can say "the operation was cancelled". `AsyncResultOperation` needs it
/// so that a plain `cancel()` — which `OperationQueue.cancelAllOperations()` calls — still
/// ends the operation with a typed result.
public protocol CancellableFailure: Error {
    /// The failure of an operation cancelled with plain `cancel()`.
    static var cancelled: Self { get }
}

/// An asynchronous operation that ends with a typed `Result` on every path.
///
/// Subclasses override `main()`, start their work, and call `finish(with:)`. To stop that
/// work when cancelled, they override `cancel(with:)` (which plain `cancel()` calls too),
/// call `super.cancel(with:)` and stop the work; the work then calls `finish(with:)` as usual.
///
/// The rules:
/// - **A result on every path.** Cancelled before it starts: the result is the
///   cancellation's failure. Cancelled while it runs: when the work finishes, the result is
///   the cancellation's failure, whatever the work passed. Finished: the work's result.
/// - **Set once.** The first `finish(with:)` decides; later calls are ignored and return
///   false (a response racing a timeout is not a crash). The first cancellation's error
///   decides too.
/// - **Plain `cancel()` works** (the queue calls it): it means `cancel(with: .cancelled)`.
/// - **Plain `finish()` traps**: finishing without a result is a programming error, caught
///   on the spot.
open class AsyncResultOperation<Success: Sendable, Failure: CancellableFailure>: AsyncOperation,
    @unchecked Sendable
{
    // @unchecked Sendable: `outcome` and `cancellation` are only touched under `shared`'s
    // lock; the rest is the thread-safe superclass.
    private let shared = Locked<(outcome: Result<Success, Failure>?, cancellation: Failure?)>((nil, nil))

    public override init() {}

    /// The result, once the operation has finished; nil before.
    public var result: Result<Success, Failure>? {
        shared.withLock { $0.outcome }
    }

    public final override func cancelledBeforeStart() {
        // The base finishes without main(). Set the result first, so that whoever learns
        // "finished" finds it.
        _ = record(nil)
    }

    /// Ends the operation with `result` — or with the cancellation's failure if it was
    /// cancelled. Returns false, and changes nothing, if the operation already had a result
    /// or is not executing (called before `start()`).
    @discardableResult
    public final func finish(with result: Result<Success, Failure>) -> Bool {
        guard isExecuting, record(result) else { return false }
        super.finish()
        return true
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
    /// cancellation's error counts. Subclasses override it to stop their work, and call super.
    open func cancel(with error: Failure) {
        shared.withLock { state in
            if state.cancellation == nil { state.cancellation = error }
        }
        super.cancel()
    }

    /// Stores the outcome once: the cancellation's failure if there is one, else `result`.
    /// Returns false if there already was an outcome.
    private func record(_ result: Result<Success, Failure>?) -> Bool {
        shared.withLock { state in
            guard state.outcome == nil else { return false }
            if let cancellation = state.cancellation {
                state.outcome = .failure(cancellation)
            } else if let result {
                state.outcome = result
            } else {
                return false  // not cancelled and no result: nothing to record
            }
            return true
        }
    }
}
