import Foundation

/// What a GET request to a URL returns: the page's HTML. Chapter 7 fetches titles with it.
public protocol PageFetcher: Sendable {
    /// Starts a GET request for `url`; `completion` is called exactly once, unless the
    /// request is cancelled first.
    func get(_ url: URL, completion: @escaping @Sendable (Result<String, any Error>) -> Void) -> any CancellableRequest
}
