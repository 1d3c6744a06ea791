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
        // TODO: cancelled while its request runs, the operation waits for ever: a cancelled
        // request never calls back. End it with .failure(.cancelled) when it is cancelled:
        // the base's onCancel(_:) runs a handler then — at once if the cancel came first.
    }

    /// Keeps the first result only, then finishes (`finish()` does nothing the second time).
    public func finish(with result: Result<String, RequestError>) {
        outcome.withLock { outcome in
            if outcome == nil { outcome = result }
        }
        finish()
    }

    public override func cancelledBeforeStart() {
        // TODO: cancelled before it starts, the operation finishes without main() — and
        // without a result. The base calls this method just before it finishes such an
        // operation: record .failure(.cancelled) here.
    }
}
