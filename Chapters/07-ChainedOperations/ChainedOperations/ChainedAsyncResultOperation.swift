import AsyncOperations
import Foundation
import ResultOperations

/// An `AsyncResultOperation` whose input is the output of another operation.
///
/// Just before it runs, an operation created without an input takes it from its upstream:
/// the operation chosen with `then`/`takeInput(from:)`, or else the one dependency that
/// provides an output of type `Input`. Anything else — no such dependency, more than one,
/// an upstream that failed or was cancelled — ends the operation with
/// `.input(problem)`, without running its work.
///
/// Subclasses override `main(with:)` instead of `main()`, and call `finish(with:)`.
open class ChainedAsyncResultOperation<Input: Sendable, Output: Sendable, Failure: ChainableFailure>:
    AsyncResultOperation<Output, Failure>, InputTaking, @unchecked Sendable
{
    // @unchecked Sendable: `source` is a Locked; the rest is the thread-safe superclass.
    private let source: Locked<(input: Input?, upstream: (any OutputProviding<Input>)?)>

    /// - Parameter input: the input, if it is known now; nil to take it from upstream.
    public init(input: Input? = nil) {
        source = Locked((input, nil))
    }

    /// The input: given at creation, or taken from upstream when the operation starts.
    public var input: Input? {
        source.withLock { $0.input }
    }

    public func takeInput(from upstream: any OutputProviding<Input>) {
        source.withLock { $0.upstream = upstream }
        addDependency(upstream)
    }

    public final override func main() {
        switch resolveInput() {
        case .success(let input): main(with: input)
        case .failure(let problem): finish(with: .failure(.input(problem)))
        }
    }

    /// Subclasses start their work on `input` here and call `finish(with:)`.
    open func main(with input: Input) {
        preconditionFailure("\(type(of: self)) must override main(with:) and call finish(with:)")
    }

    /// The input given at creation, or the upstream's output. It lets go of `upstream`, which
    /// is no longer needed; the upstream stays in `dependencies` (Foundation holds it there
    /// strongly) as long as this operation lives. There is no cycle: an operation holds its
    /// dependents unretained.
    private func resolveInput() -> Result<Input, InputProblem> {
        let (given, chosen) = source.withLock { source in
            defer { source.upstream = nil }
            return (source.input, source.upstream)
        }
        if let given { return .success(given) }
        let providers = chosen.map { [$0] } ?? dependencies.compactMap { $0 as? any OutputProviding<Input> }
        guard let upstream = providers.first else { return .failure(.noInput) }
        guard providers.count == 1 else { return .failure(.ambiguousInput(providers: providers.count)) }
        if upstream.isCancelled { return .failure(.upstreamCancelled) }
        switch upstream.outputResult {
        case .success(let output)?:
            source.withLock { $0.input = output }
            return .success(output)
        case .failure(let error)?: return .failure(.upstreamFailed(error))
        case nil: return .failure(.noInput)  // a dependency that finished without a result
        }
    }
}
