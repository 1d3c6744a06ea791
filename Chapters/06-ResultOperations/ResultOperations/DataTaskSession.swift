import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking  // URLRequest, URLResponse and URLError on Linux
#endif

/// What the post's operations (`SwiftGenericsPost`) ask of `URLSession`: a data task for a
/// request, whose completion handler gets the data, the response and an error.
public protocol DataTaskSession: Sendable {
    func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any SessionDataTask
}
