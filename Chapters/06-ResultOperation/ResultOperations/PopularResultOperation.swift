import AsyncOperations
import Foundation
import ManualState

/// The result operation of "Advanced asynchronous operations by making use of generics"
/// (Antoine van der Lee; the `AsyncResultOperation` of github.com/AvdLee/AsyncOperations),
/// written here with the same structure, kept for the tests and the README.
///
/// To force the typed variants, plain `finish()` traps unless the operation was cancelled,
/// and plain `cancel()` traps: every subclass must override `cancel()` and call
/// `cancel(with:)`, as the article's `UnfurlURLOperation` does. What goes wrong is shown in
/// `Tests/PlaygroundTests/Chapter6/ArticleExampleTests.swift`:
/// - the "must override" is only a run-time trap: a subclass that forgets the override
///   crashes the first time its queue calls `cancelAllOperations()`;
/// - the base never finishes a running operation that is cancelled (the article's base
///   operation has no `cancel()` of its own), and the article's data-task completion returns
///   without finishing once `isCancelled` is true: a running unfurl that is cancelled keeps
///   its queue waiting for ever;
/// - `cancel(with:)` overwrites any result: cancelling a finished operation replaces its
///   success with a failure and calls `onResult` a second time.
///
/// Changes from the article, each forced by Swift 6:
/// - the base is chapter 2's `BarrierQueueOperation`, the article's own base operation
///   (its flags behind a concurrent queue with barrier writes);
/// - `result` and `onResult` are stored under a lock, so that `@unchecked Sendable` is
///   honest (the article stores them in plain properties), and `Success` is `Sendable`;
/// - `result` is an optional (the article's `Sources` version declares it `Result!`).
open class PopularResultOperation<Success: Sendable, Failure: Error>: BarrierQueueOperation, @unchecked Sendable {
    // @unchecked Sendable: `stored` is a Locked; the rest is the thread-safe superclass.
    private struct Stored {
        var result: Result<Success, Failure>?
        var onResult: (@Sendable (Result<Success, Failure>) -> Void)?
    }

    private let stored = Locked(Stored())

    public override init() {}

    /// Set by `finish(with:)` and `cancel(with:)`; the article's `didSet` calls `onResult`.
    public private(set) var result: Result<Success, Failure>? {
        get { stored.withLock { $0.result } }
        set {
            let onResult = stored.withLock { stored in
                stored.result = newValue
                return stored.onResult
            }
            if let newValue { onResult?(newValue) }
        }
    }

    /// Called every time `result` is set.
    public var onResult: (@Sendable (Result<Success, Failure>) -> Void)? {
        get { stored.withLock { $0.onResult } }
        set { stored.withLock { $0.onResult = newValue } }
    }

    public final override func finish() {
        guard !isCancelled else { return super.finish() }
        fatalError("Make use of finish(with:) instead to ensure a result")
    }

    public func finish(with result: Result<Success, Failure>) {
        self.result = result
        super.finish()
    }

    open override func cancel() {
        fatalError("Make use of cancel(with:) instead to ensure a result")
    }

    public func cancel(with error: Failure) {
        self.result = .failure(error)
        super.cancel()
    }
}
