import AsyncOperations
import Foundation
import ManualState

#if canImport(FoundationNetworking)
    import FoundationNetworking  // URLRequest and URLResponse on Linux
#endif

/// The code of the blog post "Advanced Asynchronous Operations with Swift Generics" (a post on
/// modemlooper's blog, based on the operations of the Collect by WeTransfer app), under the
/// post's own names. Chapter 7 adds the post's chained operations to it.
///
/// A namespace, so that the post's `AsyncResultOperation` and `UnfurlURLOperation` keep their
/// names beside the package's own.
public enum SwiftGenericsPost {
    /// The post builds "on a standard AsyncOperation" without showing it. Here that is the
    /// base operation of "Asynchronous operations for writing concurrent solutions in Swift"
    /// (chapter 2), which the post lists among its related posts. Its `start()` prints
    /// "Starting".
    public typealias AsyncOperation = ConcurrentSolutionsPost.AsyncOperation
}

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

    /// The post's example: a HEAD request for a short URL; the result is the URL the response
    /// comes from, after the redirects. (With a real `URLSession`, a redirect without a target
    /// and a missing page both come back as a response for the URL that sent them, with no
    /// error: this returns `.success` for them, and `.missingRedirectURL` practically never.)
    ///
    /// Change from the post forced by Swift 6: `dataTask` is kept under a lock — `main()`
    /// writes it on the queue's thread and `cancel()` reads it on any thread, and the
    /// `@unchecked Sendable` that Swift 6 requires promises that is safe.
    /// Not forced by Swift 6:
    /// - No network in this package: the session is a parameter (`URLSessionWeb()`, the shared
    ///   `URLSession`, by default, as in the post); the tests and chapters pass a
    ///   `LocalURLSession`.
    /// - The package's layout: `public` (the class and its members; the post's have default
    ///   access), for the chapters and tests in other modules.
    public final class UnfurlURLOperation: AsyncResultOperation<URL, UnfurlURLOperation.Error>, @unchecked Sendable {
        // @unchecked Sendable: `dataTask` is a Locked; the rest are constants.
        public enum Error: Swift.Error {
            case canceled
            case missingRedirectURL
            case underlying(error: Swift.Error)
        }

        private let shortURL: URL
        private let session: any DataTaskSession
        private let dataTask = Locked<(any SessionDataTask)?>(nil)

        public init(shortURL: URL, session: any DataTaskSession = URLSessionWeb()) {
            self.shortURL = shortURL
            self.session = session
        }

        public override func main() {
            var request = URLRequest(url: shortURL)
            request.httpMethod = "HEAD"

            let task = session.dataTask(with: request) { [weak self] (_, response, error) in
                if let error = error {
                    self?.finish(with: .failure(.underlying(error: error)))
                    return
                }

                guard let longURL = response?.url else {
                    self?.finish(with: .failure(.missingRedirectURL))
                    return
                }

                self?.finish(with: .success(longURL))
            }
            dataTask.withLock { $0 = task }
            dataTask.withLock { $0 }?.resume()
        }

        public override func cancel() {
            dataTask.withLock { $0 }?.cancel()
            cancel(with: .canceled)
        }
    }
}
