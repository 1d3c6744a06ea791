// Exercise 7 — take the input from the upstream operation, with typed failures (about 15 minutes).
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
    guard let provider = providers.first else { return .failure(.noInput) }
    guard providers.count == 1 else { return .failure(.ambiguousInput(providers: providers.count)) }
    if provider.isCancelled { return .failure(.upstreamCancelled) }
    if !provider.isFinished { provider.waitUntilFinished() }  // its result is there once it has finished
    switch provider.outputResult {
    case .success(let output)?: return .success(output)
    case .failure(let error)?: return .failure(.upstreamFailed(error))
    case nil: return .failure(.noInput)  // not finished, or finished without a result
    }
}
