import AsyncOperations
import Foundation
import ResultOperations

extension SwiftGenericsPost {
    /// The post's chained operation: just before it starts, an operation without an input
    /// takes the first output among its dependencies that casts to `Input`. Only chained
    /// operations provide an output, as `try? result?.get()`: a failed one provides nil.
    ///
    /// What goes wrong (`PostChainingTests`): the post's own call site chains a plain
    /// `UnfurlURLOperation`, which provides no output, so the chained operation gets no input;
    /// an upstream's failure reaches the downstream as nil, like no upstream at all; and with
    /// two providers the first one that casts wins, without a word.
    ///
    /// Changes from the post forced by Swift 6: `@unchecked Sendable` (required on a subclass
    /// of `Operation`), and to make it true, `input` is kept under a lock (`start()` writes it
    /// on the queue's thread, anyone may read it), so `Input` must be `Sendable`; so must
    /// `Output`, the `Success` of the result.
    /// Not forced by Swift 6 (the package's layout): `public` where the post has the default
    /// access (`input`, `init`, `output`), for the chapters and tests in other modules.
    open class ChainedAsyncResultOperation<Input: Sendable, Output: Sendable, Failure>:
        AsyncResultOperation<Output, Failure>, ChainedOperationOutputProviding, @unchecked Sendable
    where Failure: Swift.Error {
        // @unchecked Sendable: `storedInput` is a Locked; the rest is the thread-safe superclass.
        private let storedInput: Locked<Input?>

        public private(set) var input: Input? {
            get { storedInput.withLock { $0 } }
            set { storedInput.withLock { $0 = newValue } }
        }

        public init(input: Input? = nil) {
            storedInput = Locked(input)
        }

        public var output: Any? {
            return try? result?.get()
        }

        public override final func start() {
            updateInputFromDependencies()
            super.start()
        }

        private func updateInputFromDependencies() {
            guard input == nil else { return }
            input = dependencies.compactMap { ($0 as? ChainedOperationOutputProviding)?.output as? Input }.first
        }
    }
}
