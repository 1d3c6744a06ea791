import AsyncOperations

/// The result operation as the popular articles write it, kept for the tests: to force the
/// typed variants, plain `finish()` and `cancel()` call `fatalError`.
///
/// The bug: `OperationQueue.cancelAllOperations()` calls plain `cancel()`, so cancelling the
/// queue crashes the program.
open class PopularResultOperation<Success: Sendable, Failure: Error>: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: `outcome` is a `Locked`; the rest is the thread-safe superclass.
    private let outcome = Locked<Result<Success, Failure>?>(nil)

    public override init() {}

    public var result: Result<Success, Failure>? { outcome.withLock { $0 } }

    public final override func finish() {
        fatalError("Make use of finish(with:) instead.")
    }

    public final func finish(with result: Result<Success, Failure>) {
        outcome.withLock { $0 = result }
        super.finish()
    }

    public override func cancel() {
        fatalError("Make use of cancel(with:) instead.")  // the bug: the queue calls this
    }

    public func cancel(with error: Failure) {
        outcome.withLock { $0 = .failure(error) }
        super.cancel()
    }
}
