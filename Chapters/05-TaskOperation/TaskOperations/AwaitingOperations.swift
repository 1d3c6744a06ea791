import Foundation

// Awaiting operations from async code, without blocking a thread.
//
// `waitUntilFinished()`, `waitUntilAllOperationsAreFinished()` and
// `addOperations(_:waitUntilFinished:)` are unavailable from async code in Swift 6, and for
// a good reason: they block the calling thread, and in async code that is one of the few
// threads of the cooperative pool (chapter 5's README measures the stall). These functions
// suspend instead: a dependent observer operation resumes the awaiting task once every
// operation has finished.

extension Operation {
    /// Suspends until this operation has finished (the queue has learned it, so its
    /// dependents may already run).
    ///
    /// Cancelling the awaiting task cancels the operation; the call still returns only once
    /// the operation has finished — a well-behaved operation finishes soon after it is
    /// cancelled. The operation must be in a queue, or be started by someone, or this never
    /// returns.
    public func untilFinished() async {
        await Self.untilFinished([self], adding: nil)
    }

    /// Suspends until all of `operations` have finished, cancelling them if the awaiting task
    /// is cancelled. If `queue` is given, adds them to it first.
    static func untilFinished(_ operations: [Operation], adding queue: OperationQueue?) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let observer = BlockOperation { continuation.resume() }
                for operation in operations { observer.addDependency(operation) }
                // A closure, not async code: adding without waiting is allowed here.
                queue?.addOperations(operations, waitUntilFinished: false)
                // On a queue of its own, so that a suspended or busy `queue` cannot hold it up.
                observerQueue.addOperation(observer)
            }
        } onCancel: {
            for operation in operations { operation.cancel() }
        }
    }
}

/// Runs the observers; it never runs anyone's work.
private let observerQueue: OperationQueue = {
    let queue = OperationQueue()
    queue.name = "AsyncOperationsPlayground.observers"
    return queue
}()

extension OperationQueue {
    /// Adds `operation` and suspends until it has finished. Cancelling the awaiting task
    /// cancels the operation.
    public func run(_ operation: Operation) async {
        await Operation.untilFinished([operation], adding: self)
    }

    /// Adds `operations` and suspends until all of them have finished. Cancelling the
    /// awaiting task cancels them.
    public func run(_ operations: [Operation]) async {
        await Operation.untilFinished(operations, adding: self)
    }

    /// Adds `operation`, suspends until it has finished, and returns its value or throws its
    /// error — `CancellationError` if it was cancelled, also by cancelling the awaiting task.
    public func value<Success>(of operation: TaskOperation<Success>) async throws -> Success {
        await run(operation)
        guard let result = operation.result else {
            // Cannot happen: a finished TaskOperation always has a result.
            preconditionFailure("\(operation) finished without a result")
        }
        return try result.get()
    }
}
