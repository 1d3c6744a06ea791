import AsyncOperations
import Coordinators
import Dispatch
import Exercise8
import Foundation
import TestSupport
import Testing

@Suite("Exercise 8 — a concurrent coordinator that collects errors safely")
struct Exercise8Tests {
    @Test("an empty list completes once, at once, with no errors")
    func emptyList() {
        let calls = Counter()
        SafeConcurrentCoordinator().perform(operations: []) { errors in
            #expect(errors.isEmpty)
            calls.increment()
        }
        #expect(calls.value == 1, "an empty list must call the completion once, before perform returns")
    }

    @Test("1,000 operations completing from four threads at once: every error, in order, one completion")
    func concurrentCompletions() async {
        let count = 1_000
        let operations = (0..<count).map { HeldOperation(id: $0) }
        let calls = Counter(target: 1)
        let reported = Locked<[Int]?>(nil)
        SafeConcurrentCoordinator().perform(operations: operations) { errors in
            reported.withLock { $0 = errors.map { ($0 as? Failed)?.id ?? -1 } }
            calls.increment()
        }
        #expect(operations.allSatisfy { $0.started }, "perform must start every operation at once")
        // Four threads call the held completions at the same time, last operation first.
        let threadsDone = Counter(target: 4)
        for thread in 0..<4 {
            Thread {
                for index in stride(from: count - 1 - thread, through: 0, by: -4) { operations[index].complete() }
                threadsDone.increment()
            }.start()
        }
        #expect(await threadsDone.waitForTarget(seconds: 5), "the operations' completions never returned: a deadlock?")
        guard await calls.waitForTarget(seconds: 2) else {
            Issue.record(
                "the completion was never called after all \(count) operations completed: count the completions")
            return
        }
        #expect(calls.value == 1, "the completion must be called exactly once; it was called \(calls.value) times")
        if let problem = Self.problem(with: reported.withLock { $0 } ?? [], expected: count) {
            Issue.record("\(problem): every error once, in the order of the operations (not the order they arrived)")
        }
    }

    @Test("the completion runs outside the lock: calling back again from inside it does not deadlock")
    func completionOutsideTheLock() async {
        let operation = HeldOperation(id: 0)
        SafeConcurrentCoordinator().perform(operations: [operation]) { _ in
            operation.complete()  // a second callback, from inside the completion
        }
        let returned = await blockingCall(within: 2) { operation.complete() }
        #expect(
            returned,
            "deadlock: the completion was called while the lock was held, and a callback from inside it waited for that lock"
        )
    }

    /// What is wrong with the reported error ids, in a few words; nil if they are 0..<expected.
    static func problem(with ids: [Int], expected count: Int) -> String? {
        let missing = Set(0..<count).subtracting(ids).sorted()
        if !missing.isEmpty {
            let shown = missing.prefix(3).map(String.init).joined(separator: ", ")
            return "\(missing.count) of \(count) errors missing (ids \(shown)\(missing.count > 3 ? ", ..." : ""))"
        }
        if ids.count > count { return "\(ids.count - count) errors reported twice" }
        if let position = ids.indices.first(where: { ids[$0] != $0 }) {
            return "out of order: error \(ids[position]) is reported at position \(position)"
        }
        return nil
    }

    @Test("an operation that calls back twice counts once")
    func callbackTwice() {
        let calls = Counter()
        let twice = HeldOperation(id: 0)
        let once = HeldOperation(id: 1)
        SafeConcurrentCoordinator().perform(operations: [twice, once]) { _ in calls.increment() }
        twice.complete()
        twice.complete()
        #expect(calls.value == 0, "a second callback of the same operation completed the run early")
        once.complete()
        #expect(calls.value == 1)
    }
}

struct Failed: Error {
    let id: Int
}

/// An operation whose completion the test calls, with a `Failed` error carrying its id.
private final class HeldOperation: CoordinatedOperation, @unchecked Sendable {
    // @unchecked Sendable: `completion` is only touched under `lock`.
    let id: Int
    private let lock = NSLock()
    private var completion: (@Sendable ((any Error)?) -> Void)?

    init(id: Int) { self.id = id }

    var started: Bool { lock.withLock { completion != nil } }

    func perform(completion: @escaping @Sendable ((any Error)?) -> Void) {
        lock.withLock { self.completion = completion }
    }

    func complete() {
        lock.withLock { completion }?(Failed(id: id))
    }
}
