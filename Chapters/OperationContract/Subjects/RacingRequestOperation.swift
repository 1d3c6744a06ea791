import AsyncOperations
import Foundation

// Exercise 6's reference solution as it stood (Chapters/Workshop/06-ResultOperations/Reference/
// Solution.swift, commit 11157c8), re-typed as a subject of the kit, its names and structure
// kept: `finish(with:)` records the first result, then finishes. A cancel that lands after the
// work's answer is recorded and before `finish()` claims the finish leaves a cancelled
// operation with a success; so does an answer that comes inside `cancel()`, after the
// cancellation is recorded and before the cancel's own `finish(with:)`.

/// Why a `RacingRequestOperation` failed.
public enum RacingRequestError: Error, Equatable {
    case cancelled
    case failed(String)
}

/// Runs `request`, which calls back with a result, and ends with that result.
public final class RacingRequestOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: `request` is a constant; `outcome` is Locked.
    public typealias Request =
        @Sendable (_ done: @escaping @Sendable (Result<String, RacingRequestError>) -> Void) ->
        Void

    private let request: Request
    private let outcome = Locked<Result<String, RacingRequestError>?>(nil)

    public init(_ request: @escaping Request) {
        self.request = request
    }

    /// The result once the operation has finished.
    public var result: Result<String, RacingRequestError>? { outcome.withLock { $0 } }

    public override func main() {
        request { result in self.finish(with: result) }
        onCancel { self.finish(with: .failure(.cancelled)) }
    }

    /// Keeps the first result only, then finishes (`finish()` does nothing the second time).
    public func finish(with result: Result<String, RacingRequestError>) {
        outcome.withLock { outcome in
            if outcome == nil { outcome = result }
        }
        finish()
    }

    public override func cancelledBeforeStart() {
        outcome.withLock { outcome in
            if outcome == nil { outcome = .failure(.cancelled) }
        }
    }
}
