import Coordinators
import Testing

// The article's own example ("Coordinating async operations"), run against its parallel
// coordinator as the article writes it (`OriginalConcurrentCoordinator`, in Pitfalls.swift).
// Only the protocol's name differs: the article's `Operation` is `OriginalOperation` here.

/// The article's `MyOperation`, as written: it calls its completion at once, with its error.
private final class MyOperation: OriginalOperation {
    var error: (any Error)?
    func perform(completion: Completion) { completion(error) }
}

/// An operation whose completion the test calls itself, on the test's own thread.
private final class HeldOperation: OriginalOperation {
    let id: Int
    let fails: Bool
    private var completion: Completion?

    init(id: Int, fails: Bool) {
        self.id = id
        self.fails = fails
    }

    func perform(completion: @escaping Completion) { self.completion = completion }

    func complete() { completion?(fails ? TestFailure(id: id) : nil) }
}

/// A broken operation: it calls its completion twice.
private final class CallsBackTwice: OriginalOperation {
    func perform(completion: @escaping Completion) {
        completion(TestFailure(id: 0))
        completion(TestFailure(id: 0))
    }
}

/// Every call of the coordinator's completion, with the ids of its errors (nil entries left out).
private final class Calls {
    var errorIDs: [[Int]] = []

    func record(_ errors: [(any Error)?]) { errorIDs.append(failureIDs(errors.compactMap { $0 })) }
}

@Suite("Chapter 8 — the article's parallel coordinator, as written")
struct Chapter8ArticleTests {
    @Test("the article's example compiles in Swift 6 mode and calls back once")
    func articleExample() {
        let calls = Calls()
        let operations = [MyOperation(), MyOperation()]
        let coordinator = OriginalConcurrentCoordinator()
        coordinator.perform(operations) { errors in calls.record(errors) }  // the article prints "All done"
        #expect(calls.errorIDs == [[]])
    }

    @Test("completions on one thread: one call back, errors in the order they arrived, not the operations' order")
    func oneThreadArrivalOrder() {
        let calls = Calls()
        let operations = [
            HeldOperation(id: 0, fails: true), HeldOperation(id: 1, fails: false), HeldOperation(id: 2, fails: true),
        ]
        OriginalConcurrentCoordinator().perform(operations) { calls.record($0) }
        for operation in operations.reversed() { operation.complete() }
        #expect(calls.errorIDs == [[2, 0]])
    }

    @Test(
        "an operation that calls back twice fills the count early: the coordinator completes before the others, and loses their errors"
    )
    func callbackTwiceCompletesEarly() {
        let calls = Calls()
        let waiting = HeldOperation(id: 1, fails: true)
        OriginalConcurrentCoordinator().perform([CallsBackTwice(), waiting]) { calls.record($0) }
        #expect(calls.errorIDs == [[0, 0]], "completed while operation 1 still runs")
        waiting.complete()
        #expect(calls.errorIDs == [[0, 0]], "operation 1's error is never reported")
    }
}
