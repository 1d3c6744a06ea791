import Foundation

/// Announces its changes while still holding the lock that its getters take.
///
/// On Linux, `didChangeValue(forKey: "isExecuting")` — the first of the two announcements in
/// `finish()` — reads `isExecuting` before it returns; the getter waits for the lock that
/// `finish()` is holding, and the thread that called `finish()` never comes back. It never
/// reaches the "isFinished" announcement. On Darwin, key-value observers read the getters
/// the same way (inferred from how observing works; not run on a Mac).
public final class NotifyingUnderLockOperation: LockedFlagsOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only `let`s to the superclass, whose flags are locked.
    private let announcing: @Sendable (String) -> Void
    private let finishReturned: @Sendable () -> Void

    /// - Parameters:
    ///   - announcing: called with the key just before each `didChangeValue(forKey:)`.
    ///   - finishReturned: called after `finish()` returns — which it never does.
    public init(
        announcing: @escaping @Sendable (String) -> Void = { _ in },
        finishReturned: @escaping @Sendable () -> Void
    ) {
        self.announcing = announcing
        self.finishReturned = finishReturned
    }

    public override func start() {
        markExecuting()
        DispatchQueue.global().async {
            self.finish()
            self.finishReturned()
        }
    }

    private func finish() {
        lock.lock()
        defer { lock.unlock() }
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        executing = false
        finished = true
        announcing("isExecuting")
        didChangeValue(forKey: "isExecuting")  // deadlock: reads isExecuting, which needs `lock`
        announcing("isFinished")
        didChangeValue(forKey: "isFinished")
    }
}
