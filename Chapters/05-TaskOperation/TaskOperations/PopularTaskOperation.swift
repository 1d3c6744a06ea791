import AsyncOperations

/// `TaskOperation` as the popular articles write it, kept with its bugs for the tests and
/// chapter 5's story. Each is marked "Bug".
///
/// Built on the finished base (`AsyncOperation`), so that only its own bugs show.
public final class PopularTaskOperation<Success: Sendable>: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: `work` is a constant; `outcome` is behind a lock. Bug 1 is the
    // closure's type, not a data race.

    // Bug 1: not @Sendable. Written in main-actor code (top-level code in main.swift, a view
    // model), the closure inherits the main actor and runs only when the main thread is free.
    private let work: () async throws -> Success
    private let outcome = Locked<Result<Success, any Error>?>(nil)

    public init(_ work: @escaping () async throws -> Success) {
        self.work = work
    }

    public var result: Result<Success, any Error>? { outcome.withLock { $0 } }

    public override func main() {
        // Bug 2: returns without finish(): a cancel() between start() and here leaves the
        // operation executing forever (chapter 3's EarlyReturnOperation).
        guard !isCancelled else { return }
        // Bug 3: the task is not kept, so cancel() cannot reach it: the work runs to its end.
        Task {
            let outcome: Result<Success, any Error>
            do {
                outcome = .success(try await work())
            } catch {
                outcome = .failure(error)
            }
            self.outcome.withLock { $0 = outcome }
            finish()
        }
    }
}
