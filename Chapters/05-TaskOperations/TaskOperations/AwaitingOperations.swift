import AsyncOperations
import Foundation
import Recording

// Awaiting operations from async code, without blocking a thread.
//
// `waitUntilFinished()`, `waitUntilAllOperationsAreFinished()` and
// `addOperations(_:waitUntilFinished:)` are unavailable from async code in Swift 6, and for
// a good reason: they block the calling thread, and in async code that is one of the few
// threads of the cooperative pool (chapter 5's README measures the stall). These functions
// suspend instead: observer operations that depend on the awaited operations resume the
// awaiting task once every one of them has finished.
//
// The only portable way to learn that an operation finished is to depend on it: the
// dependent becomes ready, and a queue starts it. Done naively, that costs the square of the
// number of operations on Linux, twice over:
// - `addDependency` first searches the dependencies already added, so one observer of N
//   operations costs N² comparisons: here an observer watches at most `operationsPerObserver`.
// - A queue looks at every operation waiting in it each time it starts one, so N observers
//   waiting in one shared queue cost N² looks: here each observer waits in a queue of its own.

extension Operation {
    /// Suspends until this operation has finished (the queue has learned it, so its
    /// dependents may already run).
    ///
    /// This only watches an operation that someone else added and owns, so cancelling the
    /// awaiting task does not cancel the operation — as awaiting `Task.value` does not cancel
    /// that task: other code may still need its outcome. The call returns once the operation
    /// has finished; to stop it, cancel the operation itself. (`OperationQueue.run(_:)` and
    /// `value(of:)`, which add the operation for the awaiting task, do cancel it.) The
    /// operation must be in a queue, or be started by someone, or this never returns.
    public func untilFinished() async {
        // Recorder: the chapters' pictures draw the awaiting task suspended (nothing unless recorded).
        Recorder.current?.record(.suspends, lane: "awaiting task", detail: "untilFinished()")
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            observe([self], keepingCancelledIn: nil) { continuation.resume() }
        }
        Recorder.current?.record(.resumes, lane: "awaiting task", after: [self])
    }

    /// Adds `operations` to `queue` for the awaiting task, and suspends until all of them have
    /// finished. They are that task's work, so cancelling the task cancels them.
    ///
    /// Added first, cancelled after: `withTaskCancellationHandler` runs its handler before the
    /// body when the task is already cancelled, and on Linux adding an operation that is
    /// already cancelled to a queue with a pending barrier block deadlocks Foundation (the
    /// queue takes its own lock twice). So the handler cancels only what has been added; what
    /// it could not cancel yet, the body cancels once it has added it. Exactly one of them does.
    /// For the same reason, an operation that is already cancelled when it is handed over is
    /// not added: it is started here, and finishes at once without its work, as its queue
    /// would have made it.
    static func untilFinished(_ operations: [Operation], adding queue: OperationQueue) async {
        let progress = Locked((added: false, cancelRequested: false))
        // Recorder: the chapters' pictures draw the awaiting task suspended (nothing unless recorded).
        Recorder.current?.record(.suspends, lane: "awaiting task", detail: "queue.run")
        defer { Recorder.current?.record(.resumes, lane: "awaiting task", after: operations) }
        // What was cancelled while nothing held it back, barrier blocks included: its keeper
        // need not wait in `queue`.
        let cancelledWhileReady = Locked(Set<ObjectIdentifier>())
        let alreadyCancelled = operations.filter(\.isCancelled)
        let toAdd = operations.filter { !$0.isCancelled }
        cancelledWhileReady.withLock { ready in
            for operation in alreadyCancelled { ready.insert(ObjectIdentifier(operation)) }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // The observers depend on the operations before the queue may run them.
                observe(operations, keepingCancelledIn: queue, unlessIn: cancelledWhileReady) {
                    continuation.resume()
                }
                // A closure, not async code: adding without waiting is allowed here.
                queue.addOperations(toAdd, waitUntilFinished: false)
                for operation in alreadyCancelled { operation.start() }
                let cancelRequested = progress.withLock { progress in
                    progress.added = true
                    return progress.cancelRequested
                }
                if cancelRequested { cancel(toAdd, recordingTheReadyIn: cancelledWhileReady) }
            }
        } onCancel: {
            let added = progress.withLock { progress in
                progress.cancelRequested = true
                return progress.added
            }
            if added { cancel(toAdd, recordingTheReadyIn: cancelledWhileReady) }
        }
    }

    /// Cancels `operations`, first recording in `ready` those of other classes than
    /// `AsyncOperation` that nothing held back: no dependency, and no barrier block of their
    /// queue (which on Linux `dependencies` does not list). No barrier block holds those, so
    /// their keeper need not wait in their queue. (`AsyncOperation` takes care of itself.)
    private static func cancel(_ operations: [Operation], recordingTheReadyIn ready: Locked<Set<ObjectIdentifier>>) {
        for operation in operations {
            if !(operation is AsyncOperation) && operation.isReady {
                ready.withLock { _ = $0.insert(ObjectIdentifier(operation)) }
            }
            operation.cancel()
        }
    }
}

/// How many operations one observer depends on: enough that the observers' own cost is
/// small beside the operations', few enough that `addDependency`'s search stays short.
private let operationsPerObserver = 64

/// Calls `body` once every operation of `operations` has finished (at once if there are none),
/// from observers that each depend on up to `operationsPerObserver` of them. Before that, the
/// cancelled ones are kept alive until their dependencies have finished; `queue` is the queue
/// they were added to, if the caller added them (its barrier blocks hold them too, except
/// those listed in `ready`: nothing held them back when they were cancelled).
private func observe(
    _ operations: [Operation], keepingCancelledIn queue: OperationQueue?,
    unlessIn ready: Locked<Set<ObjectIdentifier>> = Locked([]), then body: @escaping @Sendable () -> Void
) {
    guard !operations.isEmpty else { return body() }
    let groups = stride(from: 0, to: operations.count, by: operationsPerObserver).map { start in
        Array(operations[start..<min(start + operationsPerObserver, operations.count)])
    }
    let remaining = Locked(groups.count)
    for group in groups {
        runAlone(after: group) {
            keepCancelledOperationsUntilTheirDependenciesFinish(group, in: queue, unlessIn: ready)
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
private func runAlone(after operations: [Operation], _ body: @escaping @Sendable () -> Void) {
    let queue = OperationQueue()
    queue.name = "AsyncOperationsPlayground.observer"
    let observer = BlockOperation {
        body()
        // Nobody else keeps the queue: it must not go before its operation has run.
        withExtendedLifetime(queue) {}
    }
    for operation in operations { observer.addDependency(operation) }
    queue.addOperation(observer)
    // Linux: if an operation finishes while `addDependency` runs, the queue can keep a stale
    // "not ready" for the observer, and correct it only when it next looks for work — which
    // this queue, with nothing else in it, would never do (the benchmark's 5,000 concurrent
    // awaits once hung so). Make it look once more; on a queue that is not suspended, this
    // changes nothing else.
    queue.isSuspended = false
}

/// Foundation holds the operations that depend on an operation as unretained pointers. A
/// cancelled operation is ready at once, whatever its dependencies: it finishes, the awaiting
/// task returns and drops it — and when one of its dependencies (a barrier block of its queue
/// included) finishes later, Foundation follows the dangling pointer and the process crashes
/// (chapter 5's README). So a cancelled operation is kept alive until each of them has
/// finished, by the keepers of chapter 3 (the barrier blocks' only if something held the
/// operation back when it was cancelled, or someone else cancelled it). The package's own
/// operations (`AsyncOperation`) take care of themselves; the others are kept here.
private func keepCancelledOperationsUntilTheirDependenciesFinish(
    _ operations: [Operation], in queue: OperationQueue?, unlessIn ready: Locked<Set<ObjectIdentifier>>
) {
    for operation in operations where operation.isCancelled && !(operation is AsyncOperation) {
        let wasReady = ready.withLock { $0.contains(ObjectIdentifier(operation)) }
        operation.keepAliveUntilDependenciesFinish(in: wasReady ? nil : queue)
    }
}

extension OperationQueue {
    /// Adds `operation` and suspends until it has finished. Cancelling the awaiting task
    /// cancels the operation.
    ///
    /// An operation that is already cancelled is not added: it is started (on the awaiting
    /// task's thread) and finishes at once without its work, as its queue would have made it
    /// — on Linux, adding it behind a pending barrier block would deadlock Foundation. Behind
    /// a pending barrier block, an `AsyncOperation` that the awaiting task cancels finishes,
    /// and the call returns, once the barrier block has run — unless a dependency of its own
    /// still ran: then at once (`AsyncOperation`'s documentation says why).
    public func run(_ operation: Operation) async {
        await Operation.untilFinished([operation], adding: self)
    }

    /// Adds `operations` and suspends until all of them have finished. Cancelling the
    /// awaiting task cancels them. Those already cancelled are started, not added (see
    /// `run(_:)` above).
    public func run(_ operations: [Operation]) async {
        await Operation.untilFinished(operations, adding: self)
    }

    /// Adds `operation`, suspends until it has finished, and returns its value or throws its
    /// error — a `TaskOperation`, an `AsyncResultOperation`, any `ResultProducing` operation.
    ///
    /// Cancelling the awaiting task cancels the operation, as it cancels a child task: the
    /// awaiting task added the operation, so it owns it. The operation then ends with its
    /// cancellation's failure (`CancellationError` for a `TaskOperation`), which is thrown.
    /// An operation already cancelled is started, not added (see `run(_:)`), and its
    /// cancellation's failure is thrown.
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
