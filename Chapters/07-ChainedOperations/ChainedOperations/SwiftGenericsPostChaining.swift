import AsyncOperations
import Foundation
import ResultOperations

#if canImport(FoundationNetworking)
    import FoundationNetworking  // URLRequest on Linux
#endif

// The chained operations of "Advanced Asynchronous Operations with Swift Generics", under the
// post's own names, beside its AsyncResultOperation and UnfurlURLOperation (chapter 6).

extension SwiftGenericsPost {
    /// An operation whose output a chained operation can take as its input.
    ///
    /// Change from the post: `public` (the post's default access), because the tests live in
    /// another module. Not Swift 6; the package's layout.
    public protocol ChainedOperationOutputProviding {
        var output: Any? { get }
    }

    /// The post's chained operation: just before it starts, an operation without an input
    /// takes the first output among its dependencies that casts to `Input`. Only chained
    /// operations provide an output, as `try? result?.get()`: a failed one provides nil.
    ///
    /// What goes wrong (`PostChainingTests`): the post's own call site chains a plain
    /// `UnfurlURLOperation`, which provides no output, so the chained operation gets no input;
    /// an upstream's failure reaches the downstream as nil, like no upstream at all; and with
    /// two providers the first one that casts wins, without a word.
    ///
    /// Changes from the post, each forced by Swift 6: `@unchecked Sendable` (required on a
    /// subclass of `Operation`), and to make it true, `input` is kept under a lock (`start()`
    /// writes it on the queue's thread, anyone may read it), so `Input` must be `Sendable`;
    /// so must `Output`, the `Success` of the result. `public` where the post has the default
    /// access, for the tests in another module.
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

    /// The operation of the post's call site: the title of the page at its input URL. The
    /// post uses it without showing it; it is written here in the style of the post's
    /// `UnfurlURLOperation` (a data task, an `Error` enum, `cancel()` cancels the task).
    ///
    /// Not in the post, decided here: without an input URL it finishes at once with
    /// `.failure(.missingInputURL)` — the post's call site then prints a failure instead of
    /// crashing or hanging.
    public final class FetchTitleChainedOperation: ChainedAsyncResultOperation<
        URL, String, FetchTitleChainedOperation.Error
    >, @unchecked Sendable
    {
        // @unchecked Sendable: `dataTask` is a Locked; `session` is a constant.
        public enum Error: Swift.Error {
            case canceled
            case missingInputURL
            case missingTitle
            case underlying(error: Swift.Error)
        }

        private let session: any DataTaskSession
        private let dataTask = Locked<(any SessionDataTask)?>(nil)

        public init(input: URL? = nil, session: any DataTaskSession = URLSessionWeb()) {
            self.session = session
            super.init(input: input)
        }

        public override func main() {
            guard let url = input else {
                finish(with: .failure(.missingInputURL))
                return
            }
            let task = session.dataTask(with: URLRequest(url: url)) { [weak self] (data, _, error) in
                if let error = error {
                    self?.finish(with: .failure(.underlying(error: error)))
                    return
                }
                guard let html = data.map({ String(decoding: $0, as: UTF8.self) }),
                    let title = FetchTitleOperation.title(in: html)
                else {
                    self?.finish(with: .failure(.missingTitle))
                    return
                }
                self?.finish(with: .success(title))
            }
            dataTask.withLock { $0 = task }
            task.resume()
        }

        public override func cancel() {
            dataTask.withLock { $0 }?.cancel()
            cancel(with: .canceled)
        }
    }
}
