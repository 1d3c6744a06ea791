// Alternative: one switch over the number of providers
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
    let providers = dependencies.compactMap { $0 as? any OutputProviding<Input> }
    switch providers.count {
    case 0: return .failure(.noInput)
    case 1: break
    default: return .failure(.ambiguousInput(providers: providers.count))
    }
    let provider = providers[0]
    guard !provider.isCancelled else { return .failure(.upstreamCancelled) }
    guard let result = provider.outputResult else { return .failure(.noInput) }
    return result.mapError { .upstreamFailed($0) }
}
