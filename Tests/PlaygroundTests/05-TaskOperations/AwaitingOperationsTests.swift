import AsyncOperations
import Foundation
import ManualState
import TaskOperations
import TestSupport
import Testing

// These tests await value(of:) itself, which has no deadline of its own: the suite's time
// limit (Swift Testing's smallest is a minute) fails a test that would otherwise hang.
@Suite("Chapter 5 — awaiting operations from async code", .timeLimit(.minutes(1)))
struct AwaitingOperationsTests {
    @Test("run(_:) returns only once every operation has finished, however the queue orders them")
    func runAwaitsAll() async {
        let log = EventLog()
        let queue = OperationQueue()
        let last = BlockOperation { log.record("last") }
        let first = TaskOperation { log.record("first") }
        last.addDependency(first)
        #expect(await queue.runs([last, first]))
        #expect(log.events == ["first", "last"])
        #expect(first.isFinished && last.isFinished)
    }

    @Test("untilFinished() waits for a queue that is suspended, and returns once it runs")
    func untilFinishedFollowsTheQueue() async throws {
        let queue = OperationQueue()
        queue.isSuspended = true
        let operation = TaskOperation { "ran" }
        queue.addOperation(operation)
        #expect(await staysPending(for: 0.1) { await operation.untilFinished() })
        queue.isSuspended = false
        #expect(await completes { await operation.untilFinished() })
        #expect(try operation.value == "ran")
    }

    @Test("cancelling the awaiting task cancels the operation, whose result is CancellationError")
    func cancellingTheAwaitingTask() async {
        let started = Flag()
        let operation = TaskOperation { () async throws -> String in
            started.raise()
            try await Task.sleep(nanoseconds: 60 * 1_000_000_000)
            return "slept a minute"
        }
        let queue = OperationQueue()
        let awaiting = Task { try await queue.value(of: operation) }
        #expect(await started.wait())
        awaiting.cancel()
        let outcome = await awaiting.result
        #expect(outcome.isCancellationError)
        #expect(operation.isCancelled && operation.isFinished)
    }

    @Test("untilFinished() only watches: cancelling the watching task leaves the operation running")
    func watchingTaskCancelled() async throws {
        let started = Flag()
        let mayFinish = Flag()
        let operation = TaskOperation { () async -> String in
            started.raise()
            _ = await mayFinish.wait()
            return "finished for its owner"
        }
        let queue = OperationQueue()
        queue.addOperation(operation)
        let watching = Task { await operation.untilFinished() }
        #expect(await started.wait())
        watching.cancel()
        // Like awaiting Task.value: the watcher goes on waiting, and the operation is not cancelled.
        #expect(await staysPending(for: 0.1) { await watching.value })
        #expect(!operation.isCancelled && operation.isExecuting)
        mayFinish.raise()
        #expect(await completes { await watching.value })
        #expect(try operation.value == "finished for its owner")
    }

    @Test("an awaiting task cancelled before it adds the operation: the operation never runs its closure")
    func cancelledAwaitingTask() async {
        let closureRan = Flag()
        let operation = TaskOperation { closureRan.raise() }
        let mayAwait = Flag()
        let queue = OperationQueue()
        let awaiting = Task {
            _ = await mayAwait.wait()
            try await queue.value(of: operation)
        }
        awaiting.cancel()
        mayAwait.raise()
        #expect(await awaiting.result.isCancellationError)
        #expect(!closureRan.isRaised && operation.isFinished)
    }

    @Test(
        "run(_:) of 200 operations in a task cancelled before it adds them: every one finishes, none runs its block, all are freed"
    )
    func cancelledAwaitingTaskOfMany() async {
        let ran = Locked(0)
        let references = (0..<200).map { _ in WeakReference() }
        do {
            let operations = (0..<200).map { _ in BlockOperation { ran.withLock { $0 += 1 } } }
            for (reference, operation) in zip(references, operations) { reference.object = operation }
            let mayAwait = Flag()
            let awaiting = Task {
                _ = await mayAwait.wait()
                await OperationQueue().run(operations)
            }
            awaiting.cancel()
            mayAwait.raise()
            await awaiting.value
            #expect(ran.withLock { $0 } == 0)
            #expect(operations.allSatisfy { $0.isFinished && $0.isCancelled && $0.dependencies.isEmpty })
        }
        let kept = await firstKept(references)
        #expect(kept == nil, "operation \(kept ?? 0) of 200 was not freed")
    }

    #if os(macOS) || os(Linux)
        @Test(
            "an awaiting task cancelled before it adds the operation: its queue cannot start it before the cancel, however late that comes",
            .exitTest)
        func cancelledAwaitingTaskCancelsLate() async {
            // The race behind cancelledAwaitingTask, forced: the thread that adds the operation
            // is held between adding it and cancelling it (`CancelledLate`) — the machine's
            // scheduler can do the same. In a child process: that thread is one of the
            // cooperative pool's.
            await #expect(processExitsWith: .success) {
                let operation = CancelledLate { exit(3) }  // its closure ran
                let mayAwait = Flag()
                let awaiting = Task {
                    _ = await mayAwait.wait()
                    try await OperationQueue().value(of: operation)
                }
                awaiting.cancel()
                mayAwait.raise()
                guard await awaiting.result.isCancellationError else { exit(4) }
                if operation.startedBeforeTheCancel.isRaised { exit(5) }
            }
        }

        @Test(
            "200 operations awaited at once on a 2-core machine: no thread is blocked, so none waits for another",
            .exitTest)
        func manyAwaitsAtOnce() async {
            // With blocking waits, 200 waiting tasks would need 200 threads; the cooperative
            // pool has one per core. Awaiting suspends instead, so this finishes at once. In a
            // child process with a watchdog thread: were the pool's threads all blocked, not
            // even a deadline of this test could fire.
            await #expect(processExitsWith: .success) {
                Thread {
                    Thread.sleep(forTimeInterval: 30)
                    exit(3)  // the awaits never finished
                }.start()
                let queue = OperationQueue()
                let sum = await withTaskGroup(of: Int.self) { group in
                    for index in 0..<200 {
                        group.addTask { (try? await queue.value(of: TaskOperation { index })) ?? -1 }
                    }
                    return await group.reduce(0, +)
                }
                if sum != (0..<200).reduce(0, +) { exit(4) }
            }
        }
    #endif
}

/// The index of the first of `references` whose object is not freed within the bound of
/// `isFreed()`; nil if all are. One bound at most: it stops at the first.
private func firstKept(_ references: [WeakReference]) async -> Int? {
    for (index, reference) in references.enumerated() where !(await reference.isFreed()) { return index }
    return nil
}

/// A `TaskOperation` whose `cancel()` first waits, half a second at most, for a queue to start
/// it: as if the thread that cancels it were held just before.
final class CancelledLate: TaskOperation<Void>, @unchecked Sendable {
    // @unchecked Sendable: adds a semaphore and a Flag, both thread-safe, to its base.
    private let started = DispatchSemaphore(value: 0)
    /// Raised if `start()` came while the operation was not cancelled yet.
    let startedBeforeTheCancel = Flag()

    override func start() {
        if !isCancelled { startedBeforeTheCancel.raise() }
        started.signal()
        super.start()
    }

    override func cancel() {
        _ = started.wait(timeout: .now() + 0.5)  // synchronous: the child process's only task waits
        super.cancel()
    }
}
