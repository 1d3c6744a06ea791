/// How an upload ended.
public enum UploadOutcome: Equatable, Sendable, CustomStringConvertible {
    case uploaded(chunks: Int)
    case cancelled(afterChunks: Int)

    public var description: String {
        switch self {
        case .uploaded(let chunks): "uploaded all \(chunks) chunks"
        case .cancelled(let sent): "cancelled after \(sent) chunk\(sent == 1 ? "" : "s")"
        }
    }
}
