import AsyncOperations
import Foundation

/// An operation that runs an `async throws` closure in a `Task` and finishes when the task
/// ends, keeping its outcome in `result`.
///
/// - The closure is `@Sendable`, so it never inherits the actor of the code that wrote it:
///   written in `main.swift` it still runs on the shared thread pool, not on the main actor
///   — which may be blocked in `waitUntilFinished()` (chapter 5's README).
/// - `cancel()` reaches the running task (`Task.isCancelled`, `CancellationError` from
///   `Task.sleep` and friends). A cancelled operation's result is `.failure(CancellationError())`,
///   whatever the closure returned; cancelled before it started, it never runs the closure.
/// - A closure that does not throw, or does not await, fits the same initialiser.
public final class TaskOperation<Success: Sendable>: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: `priority` and `work` are constants; `task` and `outcome` are only
    // read or written under `shared`'s lock; the rest is the thread-safe superclass.

    public typealias Work = @Sendable () async throws -> Success

    private let priority: TaskPriority?
    private let work: Work
    private let shared = Locked<(task: Task<Void, Never>?, outcome: Result<Success, any Error>?)>((nil, nil))

    /// - Parameters:
    ///   - priority: the priority of the task that runs `work`.
    ///   - work: the asynchronous work; its return value or error becomes `result`.
    public init(priority: TaskPriority? = nil, _ work: @escaping Work) {
        self.priority = priority
        self.work = work
    }

    /// The outcome once the operation has finished; nil before.
    public var result: Result<Success, any Error>? {
        shared.withLock { $0.outcome }
    }

    public override func cancelledBeforeStart() {
        // The base finishes without main(): the result is set here, before the queue learns
        // that the operation finished.
        record(.failure(CancellationError()))
    }

    public override func main() {
        let task = Task(priority: priority) { [work] in
            let outcome: Result<Success, any Error>
            do {
                outcome = .success(try await work())
            } catch {
                outcome = .failure(error)
            }
            self.record(outcome)
            self.finish()
        }
        shared.withLock { $0.task = task }
        // A cancel() that came after start() checked isCancelled, but before the task was
        // stored, found no task to cancel: catch up now.
        if isCancelled { task.cancel() }
    }

    public override func cancel() {
        super.cancel()
        shared.withLock { $0.task }?.cancel()
    }

    /// Keeps `outcome`, or a `CancellationError` if the operation was cancelled.
    private func record(_ outcome: Result<Success, any Error>) {
        let outcome = isCancelled ? .failure(CancellationError()) : outcome
        shared.withLock {
            $0.outcome = outcome
            $0.task = nil  // the task holds this operation; do not hold it back
        }
    }
}

extension TaskOperation {
    /// The value, or the error that ended the operation; nil while it has not finished.
    public var value: Success? {
        get throws { try result?.get() }
    }
}
