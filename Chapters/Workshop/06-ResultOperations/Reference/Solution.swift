// Exercise 6 — a result on every path, also when the queue cancels (about 15 minutes).
// Chapter 6: Chapters/06-ResultOperations/README.md. Check it: Scripts/workshop check 6
import AsyncOperations
import Foundation

/// Why a `RequestOperation` failed.
public enum RequestError: Error, Equatable {
    case cancelled
    case failed(String)
}

/// Runs `request`, which calls back with an answer, and ends with a result that agrees with
/// `isCancelled`: `.failure(.cancelled)` if it was cancelled, else the request's first answer.
///
/// `OperationQueue.cancelAllOperations()` calls plain `cancel()`, so plain `cancel()` must
/// work: cancelled before it started, while its request ran (a cancelled request never calls
/// back), or after the request answered but before the operation finished, it ends with
/// `.failure(.cancelled)`. Whoever learns that it finished — its queue, a dependent — finds
/// the result there; before that, `result` is nil.
///
/// `open` so that the tests can watch it, from a subclass, at the moments they choose.
open class RequestOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: `request` is a constant; `outcome` is Locked.
    public typealias Request = @Sendable (_ done: @escaping @Sendable (Result<String, RequestError>) -> Void) -> Void
    typealias Outcome = (answer: Result<String, RequestError>?, result: Result<String, RequestError>?)

    private let request: Request
    /// The request's first answer, and the result: decided when the operation finishes.
    private let outcome = Locked<Outcome>((nil, nil))

    public init(_ request: @escaping Request) {
        self.request = request
    }

    /// The result once the operation has finished; nil before, even while it is finishing.
    public var result: Result<String, RequestError>? {
        // The base's isFinished: it turns true just after willFinish() has decided the result.
        super.isFinished ? outcome.withLock { $0.result } : nil
    }

    open override func main() {
        request { answer in self.finish(with: answer) }
        // A cancelled request never calls back: the cancel ends the operation, at once if it
        // came before this line (also one that landed while start() was still starting it).
        onCancel { self.finish() }
    }

    /// Keeps the request's first answer, then finishes (`finish()` does nothing the second time).
    public func finish(with answer: Result<String, RequestError>) {
        outcome.withLock { outcome in
            if outcome.answer == nil { outcome.answer = answer }
        }
        finish()
    }

    public override func willFinish() {
        // On every path to finished, just before "finished" is stored: isCancelled can no longer
        // change (the base ignores a cancel() from here on), so the result agrees with it. Not in
        // finish(with:): a cancel() could land between the answer and the finish.
        let cancelled = isCancelled
        outcome.withLock { outcome in
            outcome.result = cancelled ? .failure(.cancelled) : outcome.answer
        }
    }
}
