import PopularCoordinators
import Testing

// The article's own example and coordinators ("Coordinating async operations"), as the article
// writes them (module PopularCoordinators). This file imports the article's module and not
// Foundation, so `Operation` is the article's protocol here, as in the article.
// Every completion below is called by the test itself, on the test's thread, in the order it
// chooses; nothing is timed.

/// The article's `MyOperation`, as written: it completes at once, without an error.
private final class MyOperation: Operation {
    func perform(completion: @escaping (Error?) -> Void) {
        completion(nil)
    }
}

/// An operation whose completion the test calls itself.
private final class HeldOperation: Operation {
    let id: Int
    let fails: Bool
    /// One completion per time it was performed, not called yet.
    private var completions: [OperationCompletion] = []
    private(set) var performed = 0

    init(id: Int, fails: Bool = false) {
        self.id = id
        self.fails = fails
    }

    func perform(completion: @escaping OperationCompletion) {
        performed += 1
        completions.append(completion)
    }

    /// Calls every completion it holds, once each, in the order it was given them.
    func complete() {
        let held = completions
        completions = []
        for completion in held { completion(fails ? TestFailure(id: id) : nil) }
    }
}

/// An operation that fails and, wrongly, calls its completion twice.
private final class CallsBackTwice: Operation {
    let id: Int

    init(id: Int) { self.id = id }

    func perform(completion: @escaping OperationCompletion) {
        completion(TestFailure(id: id))
        completion(TestFailure(id: id))
    }
}

/// Every call of a coordinator's completion: the ids of its errors.
private final class Calls {
    var errorIDs: [[Int]] = []

    func record(_ errors: [Error]) { errorIDs.append(failureIDs(errors)) }
}

@Suite("Chapter 8 — the article's coordinators, as written")
struct Chapter8ArticleTests {
    /// The article's two coordinators (not `Sendable`, so not test arguments).
    static var coordinators: [OperationCoordinator] {
        [ConcurrentOperationCoordinator(), SerialOperationCoordinator()]
    }

    @Test("the article's example: two MyOperations, \"All done\" once, before perform returns")
    func articleExample() {
        for coordinator in Self.coordinators {
            var printed: [String] = []
            let operations = [MyOperation(), MyOperation()]
            coordinator.perform(operations) { errors in
                printed.append(errors.isEmpty ? "All done" : "errors: \(errors)")  // the article prints "All done"
            }
            #expect(printed == ["All done"], "\(type(of: coordinator))")
        }
    }

    @Test("an empty list: the completion is called once, with no errors, at once")
    func emptyList() {
        for coordinator in Self.coordinators {
            let calls = Calls()
            coordinator.perform([]) { calls.record($0) }
            #expect(calls.errorIDs == [[]], "\(type(of: coordinator))")
        }
    }

    @Test("concurrent, completions on one thread: one call back, errors in the order they arrived")
    func oneThreadArrivalOrder() {
        let calls = Calls()
        let operations = [HeldOperation(id: 0, fails: true), HeldOperation(id: 1), HeldOperation(id: 2, fails: true)]
        ConcurrentOperationCoordinator().perform(operations) { calls.record($0) }
        #expect(operations.allSatisfy { $0.performed == 1 }, "all started at once")
        for operation in operations.reversed() { operation.complete() }
        #expect(calls.errorIDs == [[2, 0]], "arrival order, not the operations' order")
    }

    @Test("serial: each operation starts when the previous one completed; errors in the operations' order")
    func serialOrder() {
        let calls = Calls()
        let operations = [HeldOperation(id: 0, fails: true), HeldOperation(id: 1), HeldOperation(id: 2, fails: true)]
        SerialOperationCoordinator().perform(operations) { calls.record($0) }
        for (index, operation) in operations.enumerated() {
            #expect(operations.map(\.performed) == (0..<3).map { $0 <= index ? 1 : 0 })
            operation.complete()
        }
        #expect(calls.errorIDs == [[0, 2]])
    }

    @Test("concurrent: an operation that calls back twice fills the count early; the others' errors are lost")
    func concurrentCallbackTwice() {
        let calls = Calls()
        let waiting = HeldOperation(id: 1, fails: true)
        ConcurrentOperationCoordinator().perform([CallsBackTwice(id: 0), waiting]) { calls.record($0) }
        #expect(calls.errorIDs == [[0, 0]], "called back while operation 1 still runs")
        waiting.complete()
        #expect(calls.errorIDs == [[0, 0]], "operation 1's error is never reported")
    }

    @Test("serial: an operation that calls back twice runs the rest of the list twice, and calls back twice")
    func serialCallbackTwice() {
        let calls = Calls()
        let next = HeldOperation(id: 1)
        SerialOperationCoordinator().perform([CallsBackTwice(id: 0), next]) { calls.record($0) }
        #expect(next.performed == 2, "the next operation was started twice")
        next.complete()  // completes both starts
        #expect(calls.errorIDs == [[0], [0]], "two call backs")
    }

    #if os(macOS) || os(Linux)
        @Test("serial: operations that complete at once nest one call each; a long list overflows the stack")
        func serialOverflowsTheStack() async {
            // In a child process: the stack overflow kills it. The package's SerialCoordinator
            // runs the same 100,000 operations (Chapter8CoordinatorTests.manySynchronousCompletions).
            await #expect(processExitsWith: .failure) {
                let operations = (0..<100_000).map { _ in MyOperation() }
                SerialOperationCoordinator().perform(operations) { _ in }
            }
        }
    #endif
}
