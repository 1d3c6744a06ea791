import ResultOperations

/// A failure type that can report an `InputProblem`.
public protocol ChainableFailure: CancellableFailure {
    static func input(_ problem: InputProblem) -> Self
}
