// Wrong answer: take the output of any dependency that has one, as the article does
// Caught by: failedProvider, cancelledProvider, severalProvidersOneCancelled
// Exercise 7 — take the input from the upstream operation, with typed failures.
// Chapter 7: Chapters/07-ChainedOperations/README.md. Check it: Scripts/workshop check 7
import ChainedOperations
import Foundation

/// The input of a chained operation, taken from its finished `dependencies`: the output of
/// the one dependency that provides an `Input` (an `any OutputProviding<Input>`).
///
/// - No such dependency: `.noInput`. Other kinds of dependency are ignored.
/// - More than one: `.ambiguousInput(providers: count)`.
/// - The provider was cancelled: `.upstreamCancelled`.
/// - The provider failed: `.upstreamFailed(error)`.
public func resolveInput<Input>(_: Input.Type, from dependencies: [Operation]) -> Result<Input, InputProblem> {
    // As the article's output does (`try? result?.get()`): a failure or a cancel is no output.
    let outputs = dependencies.compactMap { dependency -> Input? in
        guard let provider = dependency as? any OutputProviding<Input> else { return nil }
        return try? provider.outputResult?.get()
    }
    guard let output = outputs.first else { return .failure(.noInput) }
    guard outputs.count == 1 else { return .failure(.ambiguousInput(providers: outputs.count)) }
    return .success(output)
}
