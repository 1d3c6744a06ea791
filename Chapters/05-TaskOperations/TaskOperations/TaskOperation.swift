// SPDX-License-Identifier: MIT
// Copyright (c) 2026 the AsyncOperationsPlayground authors: LICENSE, at the repository's root.
import Foundation

// In this package the base is a module of its own; copied into an app, it is in the app's module.
#if canImport(AsyncOperations)
    import AsyncOperations
#endif

/// An operation that runs an `async throws` closure in a `Task` and finishes when the task
/// ends, keeping its outcome in ``result``.
///
/// ```swift
/// let greeting = TaskOperation { try await fetchGreeting() }
/// let text = try await queue.value(of: greeting)  // or: add it, and read greeting.value once finished
/// ```
///
/// - The closure is `@Sendable`, so it never inherits the actor of the code that wrote it:
///   written in `main.swift` it still runs on the shared thread pool, not on the main actor
///   — which may be blocked in `waitUntilFinished()` (chapter 5's README). A closure that asks
///   for the main actor (`{ @MainActor in … }`, or one that awaits main-actor code) still
///   needs it: never block the main thread waiting for such an operation; await it.
/// - `cancel()` reaches the running task (`Task.isCancelled`, `CancellationError` from
///   `Task.sleep` and friends). A cancelled operation's result is `.failure(CancellationError())`,
///   whatever the closure returned; cancelled before it started, it never runs the closure.
///   A `cancel()` that comes once the task has ended changes nothing: the result stands.
/// - Only the task finishes it: `finish()` traps, because the operation owes a result.
/// - A closure that does not throw, or does not await, fits the same initialiser.
///
/// It is `open` so that a subclass can watch it (its getters, `start()`, `cancel()`,
/// `willFinish()`); its work is the closure, and `main()` and `finish()` are final.
open class TaskOperation<Success: Sendable>: AsyncOperation, ResultProducing, @unchecked Sendable {
    // @unchecked Sendable: `priority` and `work` are constants; `outcome` is a Locked; the
    // rest is the thread-safe superclass.

    public typealias Work = @Sendable () async throws -> Success

    private let priority: TaskPriority?
    private let work: Work
    /// What the task returned (`pending`), then the result (`final`).
    private let outcome = Locked<(pending: Result<Success, any Error>?, final: Result<Success, any Error>?)>((nil, nil))

    /// - Parameters:
    ///   - priority: the priority of the task that runs `work`.
    ///   - work: the asynchronous work; its return value or error becomes ``result``.
    public init(priority: TaskPriority? = nil, _ work: @escaping Work) {
        self.priority = priority
        self.work = work
    }

    /// The outcome once the operation has finished; nil before, even while it is finishing.
    public var result: Result<Success, any Error>? {
        // Recorded in willFinish(), just before "finished" is stored: read only once it is.
        // (The base's isFinished, not an override's, which may read this property.)
        super.isFinished ? outcome.withLock { $0.final } : nil
    }

    public final override func main() {
        let task = Task(priority: priority) { [work] in
            let result: Result<Success, any Error>
            do {
                result = .success(try await work())
            } catch {
                result = .failure(error)
            }
            self.outcome.withLock { $0.pending = result }
            super.finish()  // the base's finish: ours traps
        }
        onCancel { task.cancel() }
    }

    /// Records the result just before "finished" is stored.
    ///
    /// `isCancelled` is final by now, so the result cannot contradict it, and whoever learns
    /// "finished" finds it. An override calls `super.willFinish()` first.
    open override func willFinish() {
        let cancelled = isCancelled
        outcome.withLock { outcome in
            outcome.final = cancelled ? .failure(CancellationError()) : outcome.pending
        }
    }

    /// Traps: only the operation's task finishes it, with the task's result.
    public final override func finish() {
        preconditionFailure("\(type(of: self)) finishes when its task ends; finish() would leave it without a result")
    }
}

nonisolated extension TaskOperation {
    /// The value, or the error that ended the operation; nil while it has not finished.
    public var value: Success? {
        get throws { try result?.get() }
    }
}
