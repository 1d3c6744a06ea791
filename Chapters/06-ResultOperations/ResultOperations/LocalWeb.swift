import AsyncOperations
import Dispatch
import Foundation

/// A local stand-in for the web: a redirect table and a set of pages, answering after a
/// latency, on a queue of its own. No network: the chapters and the tests use it.
///
/// It gives the package's operations the answers they ask for, already interpreted: a HEAD
/// request ends at a URL, at nil for a redirect without a target, or with `notFound`; a GET
/// returns a page or `notFound`. (`URLSession` answers those two cases with a plain response —
/// status 301 or 404, no error — which `URLSessionWeb` turns into the same answers.)
public struct LocalWeb: HeadRequester, PageFetcher {
    /// Short URL → where it redirects. A nil target is a redirect without a Location.
    public var redirects: [URL: URL?]
    /// The pages that exist, with their HTML.
    public var pages: [URL: String]
    /// How long each answer takes.
    public var latency: DispatchTimeInterval
    /// Called when a request arrives, before it is answered: lets a story or a test act while
    /// a request is surely in flight.
    public var onRequest: (@Sendable (URL) -> Void)?

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case notFound(URL)
        case tooManyRedirects(URL)

        public var description: String {
            switch self {
            case .notFound(let url): "notFound(\(url))"
            case .tooManyRedirects(let url): "tooManyRedirects(\(url))"
            }
        }
    }

    public init(
        redirects: [URL: URL?] = [:], pages: [URL: String] = [:], latency: DispatchTimeInterval = .seconds(0),
        onRequest: (@Sendable (URL) -> Void)? = nil
    ) {
        self.redirects = redirects
        self.pages = pages
        self.latency = latency
        self.onRequest = onRequest
    }

    public func head(_ url: URL, completion: @escaping @Sendable (Result<URL?, any Error>) -> Void)
        -> any CancellableRequest
    {
        request(url, answering: { finalURL(of: url) }, completion: completion)
    }

    public func get(_ url: URL, completion: @escaping @Sendable (Result<String, any Error>) -> Void)
        -> any CancellableRequest
    {
        request(
            url, answering: { pages[url].map { .success($0) } ?? .failure(Failure.notFound(url)) },
            completion: completion)
    }

    /// Follows the redirect table from `url`.
    func finalURL(of url: URL) -> Result<URL?, any Error> {
        switch follow(url) {
        case .page(let page): .success(page)
        case .redirectWithoutTarget: .success(nil)
        case .missing(let missing): .failure(Failure.notFound(missing))
        case .tooManyRedirects: .failure(Failure.tooManyRedirects(url))
        }
    }

    /// Where following the redirect table from a URL ends.
    enum RedirectEnd {
        /// A page that exists.
        case page(URL)
        /// A redirect without a target, at this URL.
        case redirectWithoutTarget(URL)
        /// A URL with neither a redirect nor a page.
        case missing(URL)
        case tooManyRedirects
    }

    /// Follows the redirect table from `url`, at most 16 redirects: the threshold Apple
    /// documents for `URLSession` (on Linux it follows 20).
    func follow(_ url: URL) -> RedirectEnd {
        var current = url
        for _ in 0...16 {  // the URL asked, then one per redirect
            guard let target = redirects[current] else {
                return pages[current] == nil ? .missing(current) : .page(current)
            }
            guard let target else { return .redirectWithoutTarget(current) }
            current = target
        }
        return .tooManyRedirects
    }

    /// Starts a request that answers with `compute()` after the latency, then tells
    /// `onRequest`. (The caller has not stored the request yet when `onRequest` runs: an
    /// operation cancelled from there must catch up after storing it, as the unfurl one does.)
    func request<Value: Sendable>(
        _ url: URL, answering compute: @escaping @Sendable () -> Result<Value, any Error>,
        completion: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> LocalRequest<Value> {
        let request = LocalRequest(after: latency, compute).whenDone(completion)
        onRequest?(url)
        return request
    }
}
