import AsyncOperations
import Foundation
import ManualState

#if canImport(FoundationNetworking)
    import FoundationNetworking  // URLRequest and URLResponse on Linux
#endif

extension SwiftGenericsPost {
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
