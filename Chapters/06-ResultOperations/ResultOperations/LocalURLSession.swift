import AsyncOperations
import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking  // URLRequest, URLResponse and URLError on Linux
#endif

/// A local stand-in for `URLSession`'s data tasks, answering from a `LocalWeb`: no network.
///
/// Like a `URLSession` task, a task starts suspended and does nothing until `resume()`; its
/// completion handler runs once, on the session's `delegateQueue`; and `cancel()` makes it
/// run with `URLError(.cancelled)`, later, on that queue. Apple documents that
/// `URLSessionTask.cancel()` "returns immediately, marking the task as being canceled", and
/// that `urlSession(_:task:didCompleteWithError:)` "will be sent to the task delegate" with
/// `NSURLErrorCancelled`; that a completion handler gets the same error is inferred for
/// Darwin, and verified on Linux (`URLSessionAnswersTests`, against a local server).
///
/// The answers are what `URLSession` answers (verified on Linux: `URLSessionAnswersTests`):
/// the redirect table is followed, and the response is for the URL where it ends — status 200
/// if the page exists, 404 if not, and 301 for a redirect without a target (no `Location` to
/// follow) — with no error. So the post's `missingRedirectURL` (no response URL) does not
/// happen here, as it practically does not on a real network. A redirect loop is an error,
/// `URLError(.httpTooManyRedirects)`, with no response. A GET gets the page's HTML.
public struct LocalURLSession: DataTaskSession {
    public let web: LocalWeb
    /// Where completion handlers run. A test can hold a serial queue here to decide when a
    /// cancelled task reports its cancellation.
    public let delegateQueue: DispatchQueue

    public init(web: LocalWeb, delegateQueue: DispatchQueue = .global()) {
        self.web = web
        self.delegateQueue = delegateQueue
    }

    public func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any SessionDataTask {
        LocalDataTask(request: request, web: web, delegateQueue: delegateQueue, completionHandler: completionHandler)
    }
}

/// One task of a `LocalURLSession`.
final class LocalDataTask: SessionDataTask {
    private typealias Handler = @Sendable (Data?, URLResponse?, (any Error)?) -> Void

    private let url: URL
    private let isHead: Bool
    private let web: LocalWeb
    private let delegateQueue: DispatchQueue
    /// The completion handler until it is called; `resumed` once `resume()` was called.
    private let state: Locked<(handler: Handler?, resumed: Bool)>

    init(
        request: URLRequest, web: LocalWeb, delegateQueue: DispatchQueue,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        url = request.url ?? URL(fileURLWithPath: "/")
        isHead = request.httpMethod == "HEAD"
        self.web = web
        self.delegateQueue = delegateQueue
        state = Locked((completionHandler, false))
    }

    func resume() {
        let first = state.withLock { state in
            defer { state.resumed = true }
            return !state.resumed && state.handler != nil
        }
        guard first else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + web.latency) {
            let (data, response, error) = self.answer()
            self.complete(data, response, error)
        }
        web.onRequest?(url)
    }

    func cancel() {
        complete(nil, nil, URLError(.cancelled))
    }

    /// Calls the completion handler on the delegate queue, unless it was called already.
    private func complete(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?) {
        guard
            let handler = state.withLock({ state in
                defer { state.handler = nil }
                return state.handler
            })
        else { return }
        delegateQueue.async { handler(data, response, error) }
    }

    private func answer() -> (Data?, URLResponse?, (any Error)?) {
        let (target, status): (URL, Int)
        switch web.follow(url) {
        case .page(let page): (target, status) = (page, 200)
        case .missing(let missing): (target, status) = (missing, 404)
        case .redirectWithoutTarget(let redirect): (target, status) = (redirect, 301)
        case .tooManyRedirects: return (nil, nil, URLError(.httpTooManyRedirects))
        }
        let response = HTTPURLResponse(url: target, statusCode: status, httpVersion: nil, headerFields: nil)
        return (isHead ? Data() : Data((web.pages[target] ?? "").utf8), response, nil)
    }
}
