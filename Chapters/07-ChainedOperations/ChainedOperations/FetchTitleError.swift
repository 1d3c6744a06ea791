/// Why fetching a page title failed.
public enum FetchTitleError: ChainableFailure, CustomStringConvertible {
    case cancelled
    case input(InputProblem)
    /// The page has no `<title>`.
    case noTitle
    case underlying(any Error)

    public var description: String {
        switch self {
        case .cancelled: "cancelled"
        case .input(let problem): "input(\(problem))"
        case .noTitle: "noTitle"
        case .underlying(let error): "underlying(\(error))"
        }
    }
}
