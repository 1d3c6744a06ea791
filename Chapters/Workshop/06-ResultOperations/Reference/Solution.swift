// Exercise 6 — a result on every path, also when the queue cancels (about 15 minutes).
// Chapter 6: Chapters/06-ResultOperations/README.md. Check it: Scripts/workshop check 6
import AsyncOperations

/// Why a `RequestOperation` failed.
public enum RequestError: Error, Equatable {
    case cancelled
    case failed(String)
}

/// Runs `request`, which calls back with a result, and ends with that result.
///
/// `OperationQueue.cancelAllOperations()` calls plain `cancel()`, so plain `cancel()` must
/// work: a cancelled operation ends with `.failure(.cancelled)`, whether it was cancelled
/// before it started or while its request was running (a cancelled request never calls back).
/// Whoever learns that it finished — its queue, a dependent — finds the result already there.
///
/// `open` so that the tests can watch it, from a subclass, at the moment it finishes.
open class RequestOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: `request` is a constant; `outcome` is Locked.
    public typealias Request = @Sendable (_ done: @escaping @Sendable (Result<String, RequestError>) -> Void) -> Void

    private let request: Request
    private let outcome = Locked<Result<String, RequestError>?>(nil)

    public init(_ request: @escaping Request) {
        self.request = request
    }

    /// The result once the operation has finished.
    public var result: Result<String, RequestError>? { outcome.withLock { $0 } }

    open override func main() {
        request { result in self.finish(with: result) }
        // A cancelled request never calls back: the cancellation ends the operation. At once if
        // the cancel() came before this line — also one that landed while start() was still
        // starting the operation, which an override of cancel() that looks at isExecuting misses.
        onCancel { self.finish(with: .failure(.cancelled)) }
    }

    /// Keeps the first result only, then finishes (`finish()` does nothing the second time).
    public func finish(with result: Result<String, RequestError>) {
        outcome.withLock { outcome in
            if outcome == nil { outcome = result }
        }
        finish()
    }

    public override func cancelledBeforeStart() {
        // Called by the base's start() just before it finishes: whoever learns "finished"
        // finds the result. (Not an override of start() that checks isCancelled itself: a
        // cancel() could land between that check and the base's.)
        outcome.withLock { outcome in
            if outcome == nil { outcome = .failure(.cancelled) }
        }
    }
}
