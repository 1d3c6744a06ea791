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
    // TODO: this finds nothing, always. Find the dependencies that provide an Input
    // (cast each one to `any OutputProviding<Input>`), then decide as described above; the
    // provider's `outputResult` holds its output or its failure.
    .failure(.noInput)
}
