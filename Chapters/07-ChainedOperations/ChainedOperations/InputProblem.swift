/// Why a chained operation had no input to work on.
public enum InputProblem: Error, CustomStringConvertible {
    /// No dependency provides an output of the input type.
    case noInput
    /// More than one dependency provides one, and none was chosen with `then`/`takeInput`.
    case ambiguousInput(providers: Int)
    /// The operation that provides the input failed.
    case upstreamFailed(any Error)
    /// The operation that provides the input was cancelled.
    case upstreamCancelled

    public var description: String {
        switch self {
        case .noInput: "noInput"
        case .ambiguousInput(let providers): "ambiguousInput(providers: \(providers))"
        case .upstreamFailed(let error): "upstreamFailed(\(error))"
        case .upstreamCancelled: "upstreamCancelled"
        }
    }
}
