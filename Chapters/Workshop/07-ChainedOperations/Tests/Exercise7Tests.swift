import ChainedOperations
import Exercise7
import Foundation
import ResultOperations
import TestSupport
import Testing

@Suite("Exercise 7 — take the input from the upstream operation")
struct Exercise7Tests {
    @Test("the one dependency that provides a String is the input; other dependencies are ignored")
    func singleProvider() async {
        let upstream = Upstream(.success("hello"))
        let unrelated = BlockOperation {}
        #expect(await OperationQueue().runs([upstream, unrelated]))
        let input = resolveInput(String.self, from: [unrelated, upstream])
        #expect(input.value == "hello", "the provider's output is the input (got \(input))")
    }

    @Test("no provider: .noInput")
    func noProvider() async {
        let unrelated = BlockOperation {}
        #expect(await OperationQueue().runs(unrelated))
        #expect(resolveInput(String.self, from: [unrelated]).problem == "noInput")
    }

    @Test("two providers: .ambiguousInput(providers: 2), not silently the first one")
    func twoProviders() async {
        let first = Upstream(.success("first"))
        let second = Upstream(.success("second"))
        #expect(await OperationQueue().runs([first, second]))
        #expect(
            resolveInput(String.self, from: [first, second]).problem == "ambiguousInput(providers: 2)",
            "with two providers, taking the first one silently is the popular bug")
    }

    @Test("a failed provider: .upstreamFailed")
    func failedProvider() async {
        let upstream = Upstream(.failure(.failed))
        #expect(await OperationQueue().runs(upstream))
        #expect(
            resolveInput(String.self, from: [upstream]).problem == "upstreamFailed(failed)",
            "a provider that failed: .upstreamFailed with its error")
    }

    @Test("a cancelled provider: .upstreamCancelled")
    func cancelledProvider() async {
        let upstream = Upstream(.success("never delivered"))
        upstream.cancel()
        #expect(await OperationQueue().runs(upstream))
        #expect(
            resolveInput(String.self, from: [upstream]).problem == "upstreamCancelled",
            "check isCancelled before the result: a cancelled operation ends with a failure too")
    }
}

enum UpstreamFailure: CancellableFailure {
    case cancelled, failed
}

/// A finished upstream with a given result.
private final class Upstream: AsyncResultOperation<String, UpstreamFailure>, @unchecked Sendable {
    // @unchecked Sendable: a constant of Sendable values.
    private let outcome: Result<String, UpstreamFailure>

    init(_ outcome: Result<String, UpstreamFailure>) { self.outcome = outcome }

    override func main() { finish(with: outcome) }
}

extension Result where Failure == InputProblem {
    var value: Success? { try? get() }

    var problem: String? {
        if case .failure(let problem) = self { return "\(problem)" }
        return nil
    }
}
