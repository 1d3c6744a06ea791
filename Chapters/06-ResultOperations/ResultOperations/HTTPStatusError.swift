import Foundation

/// A response whose status says that the request did not get what it asked for.
public struct HTTPStatusError: Error, Equatable, CustomStringConvertible {
    public let statusCode: Int
    public let url: URL?

    public init(statusCode: Int, url: URL?) {
        self.statusCode = statusCode
        self.url = url
    }

    public var description: String { "HTTP \(statusCode) for \(url?.absoluteString ?? "no URL")" }
}
