import AsyncOperations
import Foundation

/// Why unfurling a URL failed.
public enum UnfurlError: CancellableFailure, CustomStringConvertible {
    case cancelled
    /// The HEAD request answered, but gave no URL to go on with.
    case missingRedirectURL
    /// The request itself failed.
    case underlying(any Error)

    public var description: String {
        switch self {
        case .cancelled: "cancelled"
        case .missingRedirectURL: "missingRedirectURL"
        case .underlying(let error): "underlying(\(error))"
        }
    }
}

/// Finds where a short URL leads: asks for the headers of the short URL, and returns the URL
/// that the request ended at, after its redirects.
public final class UnfurlURLOperation: AsyncResultOperation<URL, UnfurlError>, @unchecked Sendable {
    // @unchecked Sendable: `shortURL` and `web` are constants; `request` is a `Locked`.
    public let shortURL: URL
    private let web: any HeadRequester
    private let request = Locked<(any CancellableRequest)?>(nil)

    /// - Parameters:
    ///   - shortURL: the URL to unfurl.
    ///   - web: who answers the HEAD request: `LocalWeb` in the chapters and tests.
    public init(shortURL: URL, web: any HeadRequester) {
        self.shortURL = shortURL
        self.web = web
    }

    public override func main() {
        let started = web.head(shortURL) { response in
            switch response {
            case .success(let finalURL?): self.finish(with: .success(finalURL))
            case .success(nil): self.finish(with: .failure(.missingRedirectURL))
            case .failure(let error): self.finish(with: .failure(.underlying(error)))
            }
        }
        request.withLock { $0 = started }
        // A cancel(with:) that came before the request was stored found none to stop.
        if isCancelled { stopRequest() }
    }

    public override func cancel(with error: UnfurlError) {
        super.cancel(with: error)
        stopRequest()
    }

    /// Stops the request and finishes: a cancelled request never answers.
    private func stopRequest() {
        guard let started = request.withLock({ $0 }) else { return }
        started.cancel()
        finish(with: .failure(.cancelled))  // the cancellation's own error wins (set once)
    }
}
