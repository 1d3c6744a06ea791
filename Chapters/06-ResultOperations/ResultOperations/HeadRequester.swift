import Foundation

/// What a HEAD request to a URL tells: the URL the request ended at after following
/// redirects, or nil if a redirect had no target. The unfurl operation depends on this
/// protocol only, so that tests and chapters run without a network.
public protocol HeadRequester: Sendable {
    /// Starts a HEAD request for `url`; `completion` is called exactly once, unless the
    /// request is cancelled first.
    func head(_ url: URL, completion: @escaping @Sendable (Result<URL?, any Error>) -> Void) -> any CancellableRequest
}
