import CoordinatingPost
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc  // SIGSEGV (not Foundation: `Operation` stays the article's here)
#elseif canImport(Darwin)
    import Darwin
#endif

// The article's own example and coordinators ("Coordinating async operations"), as the article
// writes them (module CoordinatingPost). This file imports the article's module and not
// Foundation, so `Operation` is the article's protocol here, as in the article.
// Every completion below is called by the test itself, on the test's thread, in the order it
// chooses; nothing is timed.

@Suite("Chapter 8 — the article's coordinators, as written")
struct Chapter8ArticleTests {
    /// The article's coordinators as first written (`final: false`), and as its last section
    /// rewrites them on its collection protocols (`final: true`). Not `Sendable`, so made here
    /// rather than passed as test arguments.
    static func concurrent(final: Bool) -> OperationCoordinator {
        final ? ConcurrentOperationCoordinatorAsItemOperation() : ConcurrentOperationCoordinator()
    }

    static func serial(final: Bool) -> OperationCoordinator {
        final ? SerialOperationCoordinatorAsItemOperation() : SerialOperationCoordinator()
    }

    @Test(
        "the article's example: two MyOperations, \"All done\" once, before perform returns (first and final code)",
        arguments: [false, true])
    func articleExample(final: Bool) {
        for coordinator in [Self.concurrent(final: final), Self.serial(final: final)] {
            var printed: [String] = []
            let operations = [MyOperation(), MyOperation()]
            coordinator.perform(operations) { errors in
                printed.append(errors.isEmpty ? "All done" : "errors: \(errors)")  // the article prints "All done"
            }
            #expect(printed == ["All done"], "\(type(of: coordinator))")
        }
    }

    @Test(
        "an empty list: the completion is called once, with no errors, at once (first and final code)",
        arguments: [false, true])
    func emptyList(final: Bool) {
        for coordinator in [Self.concurrent(final: final), Self.serial(final: final)] {
            let calls = Calls()
            coordinator.perform([]) { calls.record($0) }
            #expect(calls.errorIDs == [[]], "\(type(of: coordinator))")
        }
    }

    @Test(
        "concurrent, completions on one thread: one call back, errors in the order they arrived (first and final code)",
        arguments: [false, true])
    func oneThreadArrivalOrder(final: Bool) {
        let calls = Calls()
        let operations = [
            HeldPostOperation(id: 0, fails: true), HeldPostOperation(id: 1), HeldPostOperation(id: 2, fails: true),
        ]
        Self.concurrent(final: final).perform(operations) { calls.record($0) }
        #expect(operations.allSatisfy { $0.performed == 1 }, "all started at once")
        for operation in operations.reversed() { operation.complete() }
        #expect(calls.errorIDs == [[2, 0]], "arrival order, not the operations' order")
    }

    @Test(
        "serial: each operation starts when the previous one completed; errors in the operations' order (first and final code)",
        arguments: [false, true])
    func serialOrder(final: Bool) {
        let calls = Calls()
        let operations = [
            HeldPostOperation(id: 0, fails: true), HeldPostOperation(id: 1), HeldPostOperation(id: 2, fails: true),
        ]
        Self.serial(final: final).perform(operations) { calls.record($0) }
        for (index, operation) in operations.enumerated() {
            #expect(operations.map(\.performed) == (0..<3).map { $0 <= index ? 1 : 0 })
            operation.complete()
        }
        #expect(calls.errorIDs == [[0, 2]])
    }

    @Test("concurrent: an operation that calls back twice fills the count early; the others' errors are lost")
    func concurrentCallbackTwice() {
        let calls = Calls()
        let waiting = HeldPostOperation(id: 1, fails: true)
        ConcurrentOperationCoordinator().perform([CallsBackTwice(id: 0), waiting]) { calls.record($0) }
        #expect(calls.errorIDs == [[0, 0]], "called back while operation 1 still runs")
        waiting.complete()
        #expect(calls.errorIDs == [[0, 0]], "operation 1's error is never reported")
    }

    @Test("serial: an operation that calls back twice runs the rest of the list twice, and calls back twice")
    func serialCallbackTwice() {
        let calls = Calls()
        let next = HeldPostOperation(id: 1)
        SerialOperationCoordinator().perform([CallsBackTwice(id: 0), next]) { calls.record($0) }
        #expect(next.performed == 2, "the next operation was started twice")
        next.complete()  // completes both starts
        #expect(calls.errorIDs == [[0], [0]], "two call backs")
    }

    #if os(macOS) || os(Linux)
        @Test(
            "serial: operations that complete at once nest one call each; a long list overflows the stack",
            .disabled(if: Sanitizer.thread, StackOverflow.whyNotUnderThreadSanitizer), .exitTest)
        func serialOverflowsTheStack() async {
            // In a child process: the stack overflow kills it. The package's SerialCoordinator
            // runs the same 100,000 operations (Chapter8CoordinatorTests.manySynchronousCompletions).
            let result = await #expect(processExitsWith: StackOverflow.ending, observing: [\.standardErrorContent]) {
                let operations = (0..<100_000).map { _ in MyOperation() }
                SerialOperationCoordinator().perform(operations) { _ in }
            }
            StackOverflow.checkReport(of: result)
        }
    #endif
}
