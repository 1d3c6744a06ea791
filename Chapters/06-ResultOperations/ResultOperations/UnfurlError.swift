/// Why unfurling a URL failed.
public enum UnfurlError: CancellableFailure, CustomStringConvertible {
    case cancelled
    /// The HEAD request answered, but gave no URL to go on with.
    case missingRedirectURL
    /// The request itself failed.
    case underlying(any Error)

    public var description: String {
        switch self {
        case .cancelled: "cancelled"
        case .missingRedirectURL: "missingRedirectURL"
        case .underlying(let error): "underlying(\(error))"
        }
    }
}
