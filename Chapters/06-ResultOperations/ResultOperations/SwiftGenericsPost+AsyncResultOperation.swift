import AsyncOperations
import Foundation
import ManualState

extension SwiftGenericsPost {
    /// The post's result operation: plain `finish()` traps unless the operation was
    /// cancelled, and plain `cancel()` always traps, to force `finish(with:)` and
    /// `cancel(with:)`. Both typed variants simply store what they are given.
    ///
    /// Changes from the post forced by Swift 6: `@unchecked Sendable`, required on a subclass
    /// of `Operation`. To make it true, `result` (which the post stores in a plain property,
    /// written from the work's thread and from whoever cancels) is kept under a lock, and so
    /// `Success` must be `Sendable`.
    /// Not forced by Swift 6: the `fatalError` messages are worded here (the post's say the
    /// same: use the typed variant, to ensure a result).
    open class AsyncResultOperation<Success: Sendable, Failure>: AsyncOperation, @unchecked Sendable
    where Failure: Error {
        // @unchecked Sendable: `storedResult` is a Locked; the rest is the post's thread-safe base.
        private let storedResult = Locked<Result<Success, Failure>?>(nil)

        public private(set) var result: Result<Success, Failure>? {
            get { storedResult.withLock { $0 } }
            set { storedResult.withLock { $0 = newValue } }
        }

        public final override func finish() {
            guard !isCancelled else { return super.finish() }
            fatalError("\(type(of: self)) must finish with finish(with:), which sets a result")
        }

        public func finish(with result: Result<Success, Failure>) {
            self.result = result
            super.finish()
        }

        open override func cancel() {
            fatalError("\(type(of: self)) must be cancelled with cancel(with:), which sets a result")
        }

        public func cancel(with error: Failure) {
            self.result = .failure(error)
            super.cancel()
        }
    }
}
