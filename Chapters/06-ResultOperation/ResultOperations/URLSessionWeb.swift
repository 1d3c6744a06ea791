import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking  // URLSession on Linux
#endif

/// The real web, through `URLSession`, for using the operations outside this package. No
/// chapter and no test uses it: they run on `LocalWeb` and `LocalURLSession`, without a network.
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
            if let error {
                completion(.failure(error))
            } else {
                completion(.success(response?.url))
            }
        }
        task.resume()
        return SessionRequest(task: task)
    }

    public func get(_ url: URL, completion: @escaping @Sendable (Result<String, any Error>) -> Void)
        -> any CancellableRequest
    {
        let task = session.dataTask(with: url) { data, _, error in
            if let error {
                completion(.failure(error))
            } else {
                completion(.success(String(decoding: data ?? Data(), as: UTF8.self)))
            }
        }
        task.resume()
        return SessionRequest(task: task)
    }
}

extension URLSessionWeb {
    /// A data task of the session, as the post's operations create it: suspended until
    /// `resume()`.
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
