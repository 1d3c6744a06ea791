import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking  // URLSession on Linux
#endif

/// The real web, through `URLSession`, for using the operations outside this package. No
/// chapter and no test sends a request through it: they run on `LocalWeb` and `LocalURLSession`,
/// without a network (`URLSessionWebTests` check how it reads `URLSession`'s answers).
///
/// `URLSession` follows redirects that have a `Location` and answers everything else with a
/// plain response and no error: a 301 without a target for the URL that sent it, a 404 for a
/// missing page (verified on Linux against a local server: URLSessionAnswersTests). So the
/// answers are interpreted here the way `LocalWeb` gives them: a 3xx ends a HEAD request at nil
/// (the unfurl's `missingRedirectURL`), and any status outside 2xx and 3xx is an
/// `HTTPStatusError` — for a GET, a 3xx too.
public struct URLSessionWeb: HeadRequester, PageFetcher, DataTaskSession {
    private let session: URLSession

    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func head(_ url: URL, completion: @escaping @Sendable (Result<URL?, any Error>) -> Void)
        -> any CancellableRequest
    {
        var request = URLRequest(url: url)
        request.httpMethod = "HEAD"  // the headers are enough; URLSession follows redirects
        let task = session.dataTask(with: request) { _, response, error in
            completion(Self.headAnswer(response: response, error: error))
        }
        task.resume()
        return SessionRequest(task: task)
    }

    public func get(_ url: URL, completion: @escaping @Sendable (Result<String, any Error>) -> Void)
        -> any CancellableRequest
    {
        let task = session.dataTask(with: url) { data, response, error in
            completion(Self.getAnswer(data: data, response: response, error: error))
        }
        task.resume()
        return SessionRequest(task: task)
    }

    /// What a HEAD request's outcome means: where it ended, nil for a redirect that had no
    /// target, or a failure.
    public static func headAnswer(response: URLResponse?, error: (any Error)?) -> Result<URL?, any Error> {
        if let error { return .failure(error) }
        guard let http = response as? HTTPURLResponse else { return .success(response?.url) }
        switch http.statusCode {
        case 200..<300: return .success(http.url)
        case 300..<400: return .success(nil)  // URLSession followed every redirect it could
        default: return .failure(HTTPStatusError(statusCode: http.statusCode, url: http.url))
        }
    }

    /// What a GET request's outcome means: the page, or a failure.
    public static func getAnswer(data: Data?, response: URLResponse?, error: (any Error)?) -> Result<String, any Error>
    {
        if let error { return .failure(error) }
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            return .failure(HTTPStatusError(statusCode: http.statusCode, url: http.url))
        }
        return .success(String(decoding: data ?? Data(), as: UTF8.self))
    }
}

extension URLSessionWeb {
    /// A data task of the session, as the post's operations create it: suspended until
    /// `resume()`. The post's operations read its answers themselves, as the post does.
    public func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any SessionDataTask {
        SessionRequest(task: session.dataTask(with: request, completionHandler: completionHandler))
    }
}

/// A `URLSessionTask` as a `CancellableRequest` and a `SessionDataTask`. Sendable without any promise of ours:
/// Foundation declares `URLSessionTask` Sendable, on Linux as on Apple platforms.
private struct SessionRequest: CancellableRequest, SessionDataTask {
    let task: URLSessionTask

    func resume() { task.resume() }
    func cancel() { task.cancel() }
}
