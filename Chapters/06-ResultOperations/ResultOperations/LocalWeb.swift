import AsyncOperations
import Dispatch
import Foundation

/// What a HEAD request to a URL tells: the URL the request ended at after following
/// redirects, or nil if a redirect had no target. The unfurl operation depends on this
/// protocol only, so that tests and chapters run without a network.
public protocol HeadRequester: Sendable {
    /// Starts a HEAD request for `url`; `completion` is called exactly once, unless the
    /// request is cancelled first.
    func head(_ url: URL, completion: @escaping @Sendable (Result<URL?, any Error>) -> Void) -> any CancellableRequest
}

/// What a GET request to a URL returns: the page's HTML. Chapter 7 fetches titles with it.
public protocol PageFetcher: Sendable {
    /// Starts a GET request for `url`; `completion` is called exactly once, unless the
    /// request is cancelled first.
    func get(_ url: URL, completion: @escaping @Sendable (Result<String, any Error>) -> Void) -> any CancellableRequest
}

/// A request in flight that can be cancelled.
public protocol CancellableRequest: Sendable {
    func cancel()
}

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

    /// Follows the redirect table from `url`, at most 10 redirects.
    func follow(_ url: URL) -> RedirectEnd {
        var current = url
        for _ in 0..<10 {
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

/// A local request: answers once after a delay, or never if cancelled before.
public final class LocalRequest<Value: Sendable>: CancellableRequest, Sendable {
    private let delay: DispatchTimeInterval
    private let compute: @Sendable () -> Result<Value, any Error>
    /// The completion, until it is called or the request is cancelled.
    private let completion = Locked<(@Sendable (Result<Value, any Error>) -> Void)?>(nil)

    init(after delay: DispatchTimeInterval, _ compute: @escaping @Sendable () -> Result<Value, any Error>) {
        self.delay = delay
        self.compute = compute
    }

    /// Starts the request; `completion` runs on a global queue, at most once.
    func whenDone(_ completion: @escaping @Sendable (Result<Value, any Error>) -> Void) -> Self {
        self.completion.withLock { $0 = completion }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
            // Taken under the lock, called outside it: a completion may cancel other work.
            let completion = self.completion.withLock { completion in
                defer { completion = nil }
                return completion
            }
            completion?(self.compute())
        }
        return self
    }

    /// After this returns, the completion will not be called.
    public func cancel() {
        completion.withLock { $0 = nil }
    }
}
