import Foundation
import Recording
import ResultOperations

/// Fetches the page at its input URL and returns the page's title.
public final class FetchTitleOperation: ChainedAsyncResultOperation<URL, String, FetchTitleError>,
    @unchecked Sendable
{
    // @unchecked Sendable: constants only, on a thread-safe base.
    private let web: any PageFetcher

    public init(url: URL? = nil, web: any PageFetcher) {
        self.web = web
        super.init(input: url)
    }

    public override func main(with url: URL) {
        // Recorder: the chapter's pictures draw the request as this operation's work (nothing
        // unless recorded).
        Recorder.current?.record(.workStarted, self)
        let started = web.get(url) { page in
            Recorder.current?.record(.workEnded, self)
            switch page {
            case .success(let html): self.finish(with: Self.title(in: html).map { .success($0) } ?? .failure(.noTitle))
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

    /// The text between `<title>` and `</title>`, if there is one.
    static func title(in html: String) -> String? {
        guard let start = html.range(of: "<title>"),
            let end = html.range(of: "</title>", range: start.upperBound..<html.endIndex)
        else { return nil }
        return String(html[start.upperBound..<end.lowerBound])
    }
}
