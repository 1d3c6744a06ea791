import AsyncOperations
import Foundation
import ResultOperations

#if canImport(FoundationNetworking)
    import FoundationNetworking  // URLRequest on Linux
#endif

extension SwiftGenericsPost {
    /// The operation of the post's call site: the title of the page at its input URL. The
    /// post uses it without showing it; it is written here in the style of the post's
    /// `UnfurlURLOperation` (a data task, an `Error` enum, `cancel()` cancels the task).
    ///
    /// Not in the post, decided here: without an input URL it finishes at once with
    /// `.failure(.missingInputURL)` — the post's call site then prints a failure instead of
    /// crashing or hanging. Like the post's unfurl, its session is a parameter (no network
    /// here), and it is `public` for the chapters and tests in other modules.
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
