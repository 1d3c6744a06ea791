import Foundation
import Recording

/// Finds where a short URL leads: asks for the headers of the short URL, and returns the URL
/// that the request ended at, after its redirects.
public final class UnfurlURLOperation: AsyncResultOperation<URL, UnfurlError>, @unchecked Sendable {
    // @unchecked Sendable: constants only, on a thread-safe base.
    public let shortURL: URL
    private let web: any HeadRequester

    /// - Parameters:
    ///   - shortURL: the URL to unfurl.
    ///   - web: who answers the HEAD request: `LocalWeb` in the chapters and tests.
    public init(shortURL: URL, web: any HeadRequester) {
        self.shortURL = shortURL
        self.web = web
    }

    public override func main() {
        // Recorder: the chapter's pictures draw the request as this operation's work (nothing
        // unless recorded).
        Recorder.current?.record(.workStarted, self)
        let started = web.head(shortURL) { response in
            Recorder.current?.record(.workEnded, self)
            switch response {
            case .success(let finalURL?): self.finish(with: .success(finalURL))
            case .success(nil): self.finish(with: .failure(.missingRedirectURL))
            case .failure(let error): self.finish(with: .failure(.underlying(error)))
            }
        }
        // Runs at once if a cancel() came before the request existed. The cancellation's own
        // error wins over .cancelled: the base records it.
        onCancel {
            started.cancel()  // a cancelled request never answers: finish here
            Recorder.current?.record(.workEnded, self)
            self.finish(with: .failure(.cancelled))
        }
    }
}
