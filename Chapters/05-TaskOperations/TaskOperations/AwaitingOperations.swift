// SPDX-License-Identifier: MIT
// Copyright (c) 2026 the AsyncOperationsPlayground authors: LICENSE, at the repository's root.
import Foundation

// In this package the base is a module of its own; copied into an app, it is in the app's module.
#if canImport(AsyncOperations)
    import AsyncOperations
#endif

// Awaiting operations from async code, without blocking a thread.
//
// `waitUntilFinished()`, `waitUntilAllOperationsAreFinished()` and
// `addOperations(_:waitUntilFinished:)` are unavailable from async code in Swift 6, and for
// a good reason: they block the calling thread, and in async code that is one of the few
// threads of the cooperative pool (chapter 5's README measures the stall). These functions
// suspend instead: observer operations that depend on the awaited operations resume the
// awaiting task once every one of them has finished.
//
// The rules:
// - Only a queue starts an operation. `run(_:)` and `value(of:)` add the operations to the
//   queue, exactly as `addOperation(_:)` does — Foundation's own checks and traps included (an
//   operation that is in a queue already, executing or finished cannot be added). An operation
//   that someone else has queued is awaited with `untilFinished()`.
// - Nothing is kept alive beyond what Foundation keeps: a cancelled operation whose dependencies
//   still run is as exposed to Foundation's unretained dependents as a `BlockOperation` is
//   (chapter 3's README).
//
// The only portable way to learn that an operation finished is to depend on it: the
// dependent becomes ready, and a queue starts it. Done naively, that costs the square of the
// number of operations on Linux, twice over:
// - `addDependency` first searches the dependencies already added, so one observer of N
//   operations costs N² comparisons: here an observer watches at most `operationsPerObserver`.
// - A queue looks at every operation waiting in it each time it starts one, so N observers
//   waiting in one shared queue cost N² looks: here each observer waits in a queue of its own.

nonisolated extension Operation {
    /// Suspends until this operation has finished (the queue has learned it, so its
    /// dependents may already run).
    ///
    /// This is how to await an operation that someone else added to a queue and owns:
    /// cancelling the awaiting task does not cancel it — as awaiting `Task.value` does not
    /// cancel that task: other code may still need its outcome. To stop it, cancel the
    /// operation itself. The operation must be in a queue, or be started by someone, or this
    /// never returns.
    public func untilFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            observe([self]) { continuation.resume() }
        }
    }

    /// Adds `operations` to `queue` for the awaiting task, and suspends until all of them have
    /// finished. They are that task's work, so cancelling the task cancels them.
    ///
    /// Added first, cancelled after: `withTaskCancellationHandler` runs its handler before the
    /// body when the task is already cancelled, and on Linux adding an operation that is
    /// already cancelled to a queue with a pending barrier block deadlocks Foundation (the
    /// queue takes its own lock twice). So the handler cancels only what has been added; what
    /// it could not cancel yet, the body cancels once it has added it. Exactly one of them does.
    ///
    /// A task cancelled already when this begins adds them so that the queue cannot start one
    /// before its cancel (`addCancelled`). A cancel that comes while they are being added may
    /// find some started, as one that comes just after does.
    static func untilFinished(_ operations: [Operation], adding queue: OperationQueue) async {
        let progress = Locked((added: false, cancelRequested: false))
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // The observers depend on the operations before the queue may run them.
                observe(operations) { continuation.resume() }
                if progress.withLock({ $0.cancelRequested }) {
                    // The handler has run, and found nothing added: it will not run again.
                    return addCancelled(operations, to: queue)
                }
                // A closure, not async code: adding without waiting is allowed here.
                queue.addOperations(operations, waitUntilFinished: false)
                let cancelRequested = progress.withLock { progress in
                    progress.added = true
                    return progress.cancelRequested
                }
                if cancelRequested { for operation in operations { operation.cancel() } }
            }
        } onCancel: {
            let added = progress.withLock { progress in
                progress.cancelRequested = true
                return progress.added
            }
            if added { for operation in operations { operation.cancel() } }
        }
    }
}

/// How many operations one observer depends on: enough that the observers' own cost is
/// small beside the operations', few enough that `addDependency`'s search stays short.
nonisolated private let operationsPerObserver = 64

/// `operations` in groups of `operationsPerObserver`, in order.
nonisolated func inGroups(_ operations: [Operation]) -> [[Operation]] {
    stride(from: 0, to: operations.count, by: operationsPerObserver).map { start in
        Array(operations[start..<min(start + operationsPerObserver, operations.count)])
    }
}

/// Calls `body` once every operation of `operations` has finished (at once if there are none),
/// from observers that each depend on up to `operationsPerObserver` of them.
nonisolated private func observe(_ operations: [Operation], then body: @escaping @Sendable () -> Void) {
    guard !operations.isEmpty else { return body() }
    let groups = inGroups(operations)
    let remaining = Locked(groups.count)
    for group in groups {
        runAlone(after: group) {
            let last = remaining.withLock { remaining in
                remaining -= 1
                return remaining == 0
            }
            if last { body() }
        }
    }
}

/// Runs `body` once every operation of `operations` has finished, in a `BlockOperation` that
/// depends on them and waits in a queue of its own. A queue (on Linux) looks at every
/// operation waiting in it each time it starts one; alone, the observer costs the same
/// however many others wait.
nonisolated private func runAlone(after operations: [Operation], _ body: @escaping @Sendable () -> Void) {
    let queue = OperationQueue()
    queue.name = "AsyncOperationsPlayground.observer"
    let observer = BlockOperation {
        body()
        // Nobody else keeps the queue: it must not go before its operation has run.
        withExtendedLifetime(queue) {}
    }
    for operation in operations { observer.addDependency(operation) }
    queue.addOperation(observer)
    // Linux: a dependency that finishes while `addOperation` reads the observer's readiness can
    // leave the queue with a stale "not ready", which it corrects without starting the observer
    // (`ForeignBugCanaries.staleReadinessAtEnqueue`; the benchmark's 5,000 concurrent awaits once
    // hung so). Make it look once more; on a queue that is not suspended, this changes nothing else.
    queue.isSuspended = false
}

nonisolated extension OperationQueue {
    /// Adds `operation` and suspends until it has finished. Cancelling the awaiting task
    /// cancels the operation.
    ///
    /// It adds the operation exactly as `addOperation(_:)` does, so it
    /// traps as that does on an operation that is already in a queue, executing or finished:
    /// to await an operation that someone else queued, use `untilFinished()`.
    /// An operation that you cancelled yourself is added too; on Linux, adding one to a queue
    /// with a pending barrier block deadlocks Foundation (chapter 5's README).
    public func run(_ operation: Operation) async {
        await Operation.untilFinished([operation], adding: self)
    }

    /// Adds `operations` and suspends until all of them have finished. Cancelling the
    /// awaiting task cancels them. The same rules as `run(_:)`.
    public func run(_ operations: [Operation]) async {
        await Operation.untilFinished(operations, adding: self)
    }

    /// Adds `operation`, suspends until it has finished, and returns its value or throws its
    /// error — a `TaskOperation`, an `AsyncResultOperation`, any `ResultProducing` operation.
    ///
    /// ```swift
    /// let title = try await queue.value(of: TaskOperation { try await fetchTitle(of: url) })
    /// ```
    ///
    /// Cancelling the awaiting task cancels the operation, as it cancels a child task: the
    /// awaiting task added the operation, so it owns it. The operation then ends with its
    /// cancellation's failure (`CancellationError` for a `TaskOperation`), which is thrown.
    /// It adds the operation as `run(_:)` does: an operation that someone else
    /// queued is awaited with `untilFinished()`, and its result read afterwards.
    public func value<Producer: ResultProducing>(of operation: Producer) async throws(Producer.Failure)
        -> Producer.Success
    {
        await run(operation)
        guard let result = operation.result else {
            // The protocol's promise, which the package's operations keep: finished means a result.
            preconditionFailure("\(operation) finished without a result")
        }
        return try result.get()
    }
}
