import AsyncOperations
import ChainedOperations
import Exercise7
import Foundation
import ResultOperations
import TestSupport
import Testing

@Suite("Exercise 7 — take the input from the upstream operation")
struct Exercise7Tests {
    @Test("the one dependency that provides a String is the input, wherever it is among the dependencies")
    func providerAtAnyPosition() async {
        let upstream = Upstream(.success("hello"))
        let unrelated = [BlockOperation {}, BlockOperation {}]
        #expect(await OperationQueue().runs(unrelated + [upstream]))
        for position in 0...unrelated.count {
            var dependencies: [Operation] = unrelated
            dependencies.insert(upstream, at: position)
            let input = resolveInput(String.self, from: dependencies)
            #expect(
                input.value == "hello",
                """
                with the provider at position \(position + 1) of \(dependencies.count), the input was \(input): find the \
                provider by its type, not by its place (hint: "Find the providers")
                """)
        }
    }

    @Test("no provider: .noInput")
    func noProvider() async {
        let unrelated = BlockOperation {}
        #expect(await OperationQueue().runs(unrelated))
        let problem = resolveInput(String.self, from: [unrelated]).problem
        #expect(
            problem == "noInput",
            "a BlockOperation provides no input: .noInput, not \(problem ?? "an input") (hint: \"Find the providers\")")
    }

    @Test("a provider of another type is no provider: an Int provider is ignored when the input is a String")
    func providerOfAnotherType() async {
        let number = Upstream(.success(42))
        let text = Upstream(.success("hello"))
        #expect(await OperationQueue().runs([number, text]))
        let input = resolveInput(String.self, from: [number, text])
        #expect(
            input.value == "hello",
            """
            an operation that provides an Int is no provider of a String input, but the input was \(input): cast to \
            any OutputProviding<Input> (hint: "Find the providers")
            """)
        #expect(
            resolveInput(String.self, from: [number]).problem == "noInput",
            "with only an Int provider, the answer was \(resolveInput(String.self, from: [number])): .noInput (hint: \"Find the providers\")"
        )
    }

    @Test("two providers: .ambiguousInput(providers: 2), not silently the first one; three: providers: 3")
    func severalProviders() async {
        let providers = [Upstream(.success("first")), Upstream(.success("second")), Upstream(.success("third"))]
        #expect(await OperationQueue().runs(providers))
        let two = resolveInput(String.self, from: Array(providers.prefix(2))).problem
        #expect(
            two == "ambiguousInput(providers: 2)",
            "with two providers the answer was \(two ?? "an input"): with more than one, none is chosen (hint: \"Decide\")"
        )
        let three = resolveInput(String.self, from: providers).problem
        #expect(
            three == "ambiguousInput(providers: 3)", "with three providers: \(three ?? "an input") (hint: \"Decide\")")
    }

    @Test("the count is of providers only: two providers among other dependencies are .ambiguousInput(providers: 2)")
    func providersAmongOthers() async {
        let providers = [Upstream(.success("first")), Upstream(.success("second"))]
        let number = Upstream(.success(42))
        let unrelated = BlockOperation {}
        #expect(await OperationQueue().runs(providers + [number, unrelated]))
        let problem = resolveInput(String.self, from: [unrelated, providers[0], number, providers[1]]).problem
        #expect(
            problem == "ambiguousInput(providers: 2)",
            """
            with two String providers, an Int provider and a BlockOperation among the dependencies, the answer was \
            \(problem ?? "an input"): the count is of the providers of the input, not of every dependency \
            (hint: "Decide")
            """)
    }

    @Test("two providers, one of them cancelled (first or second): still .ambiguousInput(providers: 2)")
    func severalProvidersOneCancelled() async {
        let done = Upstream(.success("done"))
        let cancelled = Upstream(.success("never delivered"))
        cancelled.cancel()
        #expect(await OperationQueue().runs([done, cancelled]))
        // Both orders: "the provider" exists only when there is one, whichever comes first.
        for (dependencies, which) in [([done, cancelled], "second"), ([cancelled, done], "first")] {
            let problem = resolveInput(String.self, from: dependencies).problem
            #expect(
                problem == "ambiguousInput(providers: 2)",
                """
                with two providers, the \(which) one cancelled, the answer was \(problem ?? "an input"): count the \
                providers first; a cancelled one is still one of them (hint: "Decide")
                """)
        }
    }

    @Test("a failed provider: .upstreamFailed")
    func failedProvider() async {
        let upstream = Upstream<String>(.failure(.failed))
        #expect(await OperationQueue().runs(upstream))
        let problem = resolveInput(String.self, from: [upstream]).problem
        #expect(
            problem == "upstreamFailed(failed)",
            """
            a provider that failed gave \(problem ?? "an input"), not .upstreamFailed with its error (hint: \
            "Decide")
            """)
    }

    @Test("a cancelled provider: .upstreamCancelled")
    func cancelledProvider() async {
        let upstream = Upstream(.success("never delivered"))
        upstream.cancel()
        #expect(await OperationQueue().runs(upstream))
        #expect(
            resolveInput(String.self, from: [upstream]).problem == "upstreamCancelled",
            """
            a provider that was cancelled (its result: a failure, .cancelled) gave \
            \(resolveInput(String.self, from: [upstream]).problem ?? "an input"): its own isCancelled decides, before \
            its result (hint: "Decide")
            """)
    }

    @Test("a provider without a result (not finished, or finished without one) gives .noInput, at once")
    func providerWithoutAResult() async {
        let notRun = Upstream(.success("never delivered"))  // never started: no result yet
        let silent = Silent()  // finished, and says it has no result
        #expect(await OperationQueue().runs(silent))
        for (provider, what) in [
            (notRun as Operation, "a provider that has not finished"),
            (silent, "a provider that finished without a result"),
        ] {
            // On a thread of its own: an answer that waits for the provider fails instead of hanging.
            let problem = Locked<String??>(nil)
            guard
                await blockingCall(
                    within: 5, { problem.withLock { $0 = resolveInput(String.self, from: [provider]).problem } })
            else {
                Issue.record(
                    """
                    with \(what) as the only dependency, resolveInput never returned: it waited for the provider. It \
                    reads what is there, once (hint: "Decide")
                    """)
                continue
            }
            let answer = problem.withLock { $0 } ?? nil
            #expect(
                answer == "noInput",
                """
                \(what), not cancelled (isCancelled is false), gave \(answer ?? "an input"): no result is \
                .noInput — neither a cancel nor a failure (hint: "Decide")
                """)
        }
    }

    @Test("a provider cancelled before it ever ran (no result yet): .upstreamCancelled")
    func cancelledProviderWithoutAResult() async {
        let upstream = Upstream(.success("never delivered"))
        upstream.cancel()  // never started: cancelled, and no result yet
        let problem = resolveInput(String.self, from: [upstream]).problem
        #expect(
            problem == "upstreamCancelled",
            """
            a provider that was cancelled and has no result yet gave \(problem ?? "an input"): its own isCancelled \
            decides, before its result (hint: "Decide")
            """)
    }

    @Test("a cancelled dependency that provides nothing is ignored: the provider's output is the input")
    func cancelledUnrelatedDependency() async {
        let upstream = Upstream(.success("hello"))
        let unrelated = BlockOperation {}
        unrelated.cancel()
        #expect(await OperationQueue().runs([unrelated, upstream]))
        let input = resolveInput(String.self, from: [unrelated, upstream])
        #expect(
            input.value == "hello",
            """
            a cancelled dependency that provides no String made the answer \(input): only the provider's own \
            cancellation counts (hint: "Decide")
            """)
    }
}

enum UpstreamFailure: CancellableFailure {
    case cancelled, failed
}

/// A provider that finishes like a `BlockOperation` and never has a result.
private final class Silent: BlockOperation, ResultProducing, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    var result: Result<String, UpstreamFailure>? { nil }
}

/// An upstream that finishes with a given result.
private final class Upstream<Output: Sendable>: AsyncResultOperation<Output, UpstreamFailure>, @unchecked Sendable {
    // @unchecked Sendable: a constant of Sendable values.
    private let outcome: Result<Output, UpstreamFailure>

    init(_ outcome: Result<Output, UpstreamFailure>) { self.outcome = outcome }

    override func main() { finish(with: outcome) }
}

extension Result where Failure == InputProblem {
    var value: Success? { try? get() }

    var problem: String? {
        if case .failure(let problem) = self { return "\(problem)" }
        return nil
    }
}
