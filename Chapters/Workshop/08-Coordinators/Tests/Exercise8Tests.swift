import AsyncOperations
import Coordinators
import Dispatch
import Exercise8
import Foundation
import TestSupport
import Testing

// Each moment where a callback can come has a test that makes it come exactly there: while
// perform() is still starting the operations, after it, twice, from inside the completion, from
// another thread while the completion runs. Three more send callbacks from several threads at
// once: nothing but the learner's code orders them, so ThreadSanitizer (the check's second run)
// sees state touched outside the lock. Reference/Rules.md lists which test checks each rule.

@Suite("Exercise 8 — a concurrent coordinator that collects errors safely")
struct Exercise8Tests {
    @Test("an empty list completes once, with no errors, before perform returns")
    func emptyList() {
        let calls = Counter()
        let reported = Locked<[any Error]>([])
        SafeConcurrentCoordinator().perform(operations: []) { errors in
            reported.withLock { $0 += errors }
            calls.increment()
        }
        #expect(
            calls.value == 1,
            """
            with an empty list, the completion had been called \(calls.value) times when perform returned: once, \
            before it returns (hint: "Once, and only once")
            """)
        #expect(
            reported.withLock { $0 }.isEmpty,
            "with an empty list, the completion got \(reported.withLock { $0.count }) errors, not [] (hint: \"Once, and only once\")"
        )
    }

    @Test("perform starts every operation before it returns; the errors come in the order of the operations")
    func errorsInOrder() {
        let operations = (0..<5).map { HeldOperation(id: $0) }
        let reported = Locked<[Int]?>(nil)
        SafeConcurrentCoordinator().perform(operations: operations) { errors in
            reported.withLock { $0 = Self.ids(errors) }
        }
        let notStarted = operations.filter { !$0.started }.map(\.id)
        #expect(
            notStarted.isEmpty,
            "when perform returned, operations \(notStarted) had not been started (hint: \"One slot per operation\")")
        for index in [3, 0, 4, 1, 2] { operations[index].complete() }
        guard let ids = reported.withLock({ $0 }) else {
            Issue.record(
                """
                operations 3, 0, 4, 1 and 2 called back, in that order, and when the last callback returned the \
                completion had not been called (hint: "Once, and only once")
                """)
            return
        }
        if let problem = Self.problem(with: ids, expected: 5) {
            Issue.record(
                """
                operations 3, 0, 4, 1 and 2 called back, in that order: \(problem). Each error goes in its operation's \
                slot, whatever order they complete in (hint: "One slot per operation")
                """)
        }
    }

    @Test("operations that call back while perform is still starting the others: one completion, after the last")
    func callbacksDuringPerform() {
        // The first two call back at once, inside perform(completion:), before the third has
        // been started; the third calls back later.
        let early = [HeldOperation(id: 0, callsBackAtOnce: true), HeldOperation(id: 1, callsBackAtOnce: true)]
        let late = HeldOperation(id: 2)
        let calls = Locked<[[Int]]>([])
        SafeConcurrentCoordinator().perform(operations: early + [late]) { errors in
            calls.withLock { $0.append(Self.ids(errors)) }
        }
        let beforeLast = calls.withLock { $0 }
        #expect(
            beforeLast.isEmpty,
            """
            operations 0 and 1 called back while perform was still starting the operations (before operation 2 was \
            started), and the completion was called then, with \(Self.describe(beforeLast)): it waits for every \
            operation. Create one slot per operation before starting any (hint: "One slot per \
            operation")
            """)
        guard late.started else {
            Issue.record(
                "operations 0 and 1 called back at once, and perform never started operation 2 (hint: \"One slot per operation\")"
            )
            return
        }
        late.complete()
        let all = calls.withLock { $0 }
        guard !all.isEmpty else {
            Issue.record(
                """
                operations 0 and 1 called back during perform, operation 2 after it: when operation 2's callback \
                returned, the completion had not been called (hint: "Once, and only once")
                """)
            return
        }
        #expect(
            all == [[0, 1, 2]],
            """
            operations 0 and 1 called back during perform, operation 2 after it: the completion was called \
            \(all.count) times, with \(Self.describe(all)), not once with [0, 1, 2] \
            (hint: "Once, and only once")
            """)
    }

    @Test("an operation that calls back twice counts once")
    func callbackTwice() {
        let calls = Counter()
        let twice = HeldOperation(id: 0)
        let once = HeldOperation(id: 1)
        SafeConcurrentCoordinator().perform(operations: [twice, once]) { _ in calls.increment() }
        twice.complete()
        twice.complete()
        #expect(
            calls.value == 0,
            """
            operation 0 of 2 called back twice, operation 1 not yet, and the completion was called: a second callback \
            of the same operation counts once (hint: "Once, and only once")
            """)
        once.complete()
        #expect(
            calls.value == 1,
            """
            when the last callback returned (operation 0 had called back twice), the completion had been called \
            \(calls.value) times, not once (hint: "Once, and only once")
            """)
    }

    @Test("an operation that succeeds and calls back twice counts once too")
    func successCallbackTwice() {
        let calls = Counter()
        let reported = Locked<[Int]?>(nil)
        let twice = HeldOperation(id: 0, succeeds: true)
        let failing = HeldOperation(id: 1)
        let once = HeldOperation(id: 2, succeeds: true)
        SafeConcurrentCoordinator().perform(operations: [twice, failing, once]) { errors in
            reported.withLock { $0 = Self.ids(errors) }
            calls.increment()
        }
        twice.complete()
        twice.complete()
        failing.complete()
        #expect(
            calls.value == 0,
            """
            operation 0 succeeded (no error) and called back twice, operation 1 failed, operation 2 had not called back, \
            and the completion was called: "already called back" is a slot's own mark, not "its error is there" — a \
            success has no error (hint: "Once, and only once")
            """)
        once.complete()
        #expect(
            calls.value == 1 && reported.withLock({ $0 }) == [1],
            """
            when the last callback returned, the completion had been called \(calls.value) times, the last with \
            \(reported.withLock { $0 }.map(\.description) ?? "nothing"): once, with the error of operation 1 (hint: \
            "Once, and only once")
            """)
    }

    @Test("the completion is called by the last callback, on its thread, before that callback returns")
    func completionOnTheLastCallbacksThread() async {
        let operations = [HeldOperation(id: 0), HeldOperation(id: 1)]
        let called = Flag()
        let onThread = Locked<Bool?>(nil)
        SafeConcurrentCoordinator().perform(operations: operations) { _ in
            onThread.withLock { $0 = ThreadMark.isSet("exercise8.last") }
            called.raise()
        }
        operations[0].complete()
        let returned = await blockingCall(within: 5) {
            ThreadMark.set("exercise8.last")
            operations[1].complete()
        }
        guard returned else {
            Issue.record(
                "the last operation's callback never returned: it waited for something (hint: \"Outside the lock\")")
            return
        }
        if let sameThread = onThread.withLock({ $0 }) {
            #expect(
                sameThread,
                """
                the completion was called on another thread than the one that delivered the last callback: call it \
                from that callback, after unlocking (hint: "Once, and only once")
                """)
            return
        }
        // Not called yet: say whether it came later, or never.
        let cameLater = await called.wait(seconds: 2)
        Issue.record(
            """
            when the last operation's callback returned, the completion had not been called\(cameLater ? "; it was called later, on another thread" : ", nor 2 s later"): \
            the callback that fills the last slot calls it, before it returns (hint: "Once, and only once")
            """)
    }

    @Test("while the completion runs, a callback from another thread does not wait for it")
    func completionOutsideTheLock() async {
        // From inside the completion, operation 0 calls back again on another thread: that
        // callback takes the lock — and waits, if the completion runs while it is held, even a
        // recursive lock (the thread is another one). On a thread of the test's own, which
        // the probe's bounded wait may block.
        let operations = [HeldOperation(id: 0), HeldOperation(id: 1)]
        let probe = Locked<(tried: Bool, returned: Bool)>((false, false))
        let returned = await blockingCall(within: 10) {
            SafeConcurrentCoordinator().perform(operations: operations) { _ in
                guard !probe.withLock({ $0.tried }) else { return }
                probe.withLock { $0.tried = true }
                let returned = valueFromAnotherThread(within: 2) { operations[0].complete() } != nil
                probe.withLock { $0.returned = returned }
            }
            operations[0].complete()
            operations[1].complete()
        }
        guard returned else {
            Issue.record(
                "the operations' callbacks never returned: they waited for something (hint: \"Outside the lock\")")
            return
        }
        let seen = probe.withLock { $0 }
        guard seen.tried else {
            Issue.record(
                "both operations called back, and the completion was never called (hint: \"Once, and only once\")")
            return
        }
        #expect(
            seen.returned,
            """
            while the completion ran, a second callback of operation 0, from another thread, waited 2 s for it and \
            did not return: the completion was called while the lock was held (a recursive lock too: the \
            callback is on another thread). Take the errors under the lock, call the completion after unlocking \
            (hint: "Outside the lock")
            """)
    }

    @Test("a callback from inside the completion, on its own thread, neither deadlocks nor completes again")
    func callbackFromInsideTheCompletion() async {
        let operation = HeldOperation(id: 0)
        let calls = Counter()
        SafeConcurrentCoordinator().perform(operations: [operation]) { _ in
            calls.increment()
            if calls.value == 1 { operation.complete() }  // a second callback, from inside the completion
        }
        guard await blockingCall(within: 5, { operation.complete() }) else {
            Issue.record(
                """
                deadlock: the operation called back, and from inside the completion called back again on the same \
                thread; that never returned. The completion runs after unlocking (hint: "Outside the lock")
                """)
            return
        }
        #expect(
            calls.value == 1,
            """
            the operation called back, then again from inside the completion: the completion was called \
            \(calls.value) times, not once. Only the call that fills the last slot completes it (hint: "Once, and \
            only once")
            """)
    }

    @Test("the last two operations call back from two threads at once: one completion, every error")
    func lastTwoAtOnce() async {
        let operations = (0..<4).map { HeldOperation(id: $0) }
        let calls = Locked<[[Int]]>([])
        SafeConcurrentCoordinator().perform(operations: operations) { errors in
            calls.withLock { $0.append(Self.ids(errors)) }
        }
        operations[0].complete()
        operations[1].complete()
        guard await atOnce(within: 5, [{ operations[2].complete() }, { operations[3].complete() }]) else {
            Issue.record(
                "operations 2 and 3 called back from two threads at once, and one of them never returned (hint: \"Outside the lock\")"
            )
            return
        }
        let all = calls.withLock { $0 }
        #expect(
            all == [[0, 1, 2, 3]],
            """
            operations 2 and 3 called back from two threads at once, last: the completion was called \(all.count) \
            times, with \(Self.describe(all)), not once with [0, 1, 2, 3]. The count, \
            and the test "was that the last one?", go under the lock (hint: "One lock for everything")
            """)
    }

    @Test("one operation calls back twice from two threads at once: it counts once")
    func sameCallbackTwiceAtOnce() async {
        let twice = HeldOperation(id: 0)
        let other = HeldOperation(id: 1)
        let calls = Counter()
        SafeConcurrentCoordinator().perform(operations: [twice, other]) { _ in calls.increment() }
        guard await atOnce(within: 5, [{ twice.complete() }, { twice.complete() }]) else {
            Issue.record(
                "operation 0 called back twice from two threads at once, and a callback never returned (hint: \"Outside the lock\")"
            )
            return
        }
        #expect(
            calls.value == 0,
            """
            operation 0 of 2 called back twice, from two threads at once, and the completion was called before \
            operation 1 called back: the slot's "done" mark is read and set under the lock (hint: "One lock for \
            everything")
            """)
        other.complete()
        #expect(
            calls.value == 1,
            """
            when the last callback returned (operation 0 had called back twice at once), the completion had been \
            called \(calls.value) times, not once (hint: "Once, and only once")
            """)
    }

    @Test("64 operations call back from eight threads at once, run after run: every error, in order, one completion")
    func manyAtOnce() async {
        for run in 1...20 {
            let operations = (0..<64).map { HeldOperation(id: $0) }
            let calls = Locked<[[Int]]>([])
            SafeConcurrentCoordinator().perform(operations: operations) { errors in
                calls.withLock { $0.append(Self.ids(errors)) }
            }
            // Thread t delivers operations t, t + 8, t + 16…, from the last one down.
            let deliveries: [@Sendable () -> Void] = (0..<8).map { thread in
                {
                    for index in stride(from: 63 - thread, through: 0, by: -8) { operations[index].complete() }
                }
            }
            guard await atOnce(within: 5, deliveries) else {
                Issue.record(
                    "run \(run): 64 operations called back from 8 threads at once, and a callback never returned (hint: \"Outside the lock\")"
                )
                return
            }
            let all = calls.withLock { $0 }
            let problem: String? =
                if all.isEmpty {
                    "the completion was never called"
                } else if all.count > 1 {
                    "the completion was called \(all.count) times"
                } else {
                    Self.problem(with: all[0], expected: 64)
                }
            if let problem {
                Issue.record(
                    """
                    run \(run): 64 operations called back from 8 threads at once, and \(problem). Every read and \
                    write of the slots and the count goes under one lock (hint: "One lock for everything")
                    """)
                return
            }
        }
    }

    /// The calls of a completion, each with its error ids: "[0, 1], [2]".
    static func describe(_ calls: [[Int]]) -> String {
        calls.map(\.description).joined(separator: ", ")
    }

    /// The ids of the `Failed` errors, -1 for any other error.
    static func ids(_ errors: [any Error]) -> [Int] {
        errors.map { ($0 as? Failed)?.id ?? -1 }
    }

    /// What is wrong with the reported error ids, in a few words; nil if they are 0..<expected.
    static func problem(with ids: [Int], expected count: Int) -> String? {
        let missing = Set(0..<count).subtracting(ids).sorted()
        if !missing.isEmpty {
            let shown = missing.prefix(3).map(String.init).joined(separator: ", ")
            return "\(missing.count) of \(count) errors were missing (ids \(shown)\(missing.count > 3 ? ", ..." : ""))"
        }
        if ids.count > count { return "\(ids.count - count) errors were reported twice" }
        if let position = ids.indices.first(where: { ids[$0] != $0 }) {
            return "the errors were out of order: error \(ids[position]) came at position \(position)"
        }
        return nil
    }
}

struct Failed: Error {
    let id: Int
}

/// An operation whose completion the test calls (or, if it `callsBackAtOnce`, that calls it
/// inside `perform`), with a `Failed` error carrying its id (or, if it `succeeds`, no error).
private final class HeldOperation: CoordinatedOperation, @unchecked Sendable {
    // @unchecked Sendable: `completion` is only touched under `lock`; the rest is constant.
    let id: Int
    let succeeds: Bool
    let callsBackAtOnce: Bool
    private let lock = NSLock()
    private var completion: (@Sendable ((any Error)?) -> Void)?

    init(id: Int, succeeds: Bool = false, callsBackAtOnce: Bool = false) {
        self.id = id
        self.succeeds = succeeds
        self.callsBackAtOnce = callsBackAtOnce
    }

    var started: Bool { lock.withLock { completion != nil } }

    func perform(completion: @escaping @Sendable ((any Error)?) -> Void) {
        lock.withLock { self.completion = completion }
        if callsBackAtOnce { complete() }
    }

    func complete() {
        lock.withLock { completion }?(succeeds ? nil : Failed(id: id))
    }
}
