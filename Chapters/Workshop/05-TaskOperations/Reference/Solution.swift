// Exercise 5 — cancelling the operation cancels its task (about 10 minutes).
// Chapter 5: Chapters/05-TaskOperations/README.md. Check it: Scripts/workshop check 5
import AsyncOperations

/// Runs an async closure in a `Task` and finishes when the task ends, keeping the outcome.
/// (`open` so that the tests can watch it, from a subclass, as `main()` and `cancel()` run.)
open class AsyncWorkOperation<Success: Sendable>: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: `work` is a constant; `task` and `outcome` are Locked.
    private let work: @Sendable () async throws -> Success
    private let task = Locked<Task<Void, Never>?>(nil)
    private let outcome = Locked<Result<Success, any Error>?>(nil)

    public init(_ work: @escaping @Sendable () async throws -> Success) {
        self.work = work
    }

    /// The outcome once the operation has finished.
    public var result: Result<Success, any Error>? { outcome.withLock { $0 } }

    open override func main() {
        let running = Task { [work] in
            let result: Result<Success, any Error>
            do {
                result = .success(try await work())
            } catch {
                result = .failure(error)
            }
            self.outcome.withLock { $0 = result }
            self.finish()
        }
        task.withLock { $0 = running }
        if isCancelled { running.cancel() }  // a cancel() that came before the task was stored
    }

    open override func cancel() {
        super.cancel()
        task.withLock { $0 }?.cancel()
    }
}
