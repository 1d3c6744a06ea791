import AsyncOperations

/// A count that tasks await until it reaches zero: `arrive()` lowers it, from any thread;
/// `untilZero()` suspends (no thread blocked) until it is zero. The chapter uses it to cause
/// an order — "cancel once all three have started" — instead of waiting and hoping.
public final class Countdown: Sendable {
    private struct State {
        var remaining: Int
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state: Locked<State>

    public init(_ count: Int) {
        state = Locked(State(remaining: count))
    }

    public func arrive() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.remaining -= 1
            guard state.remaining == 0 else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }  // outside the lock
    }

    /// Suspends until the count is zero, and returns true; returns false as soon as the
    /// awaiting task is cancelled (at once if it already is), as `Task.sleep` ends early.
    @discardableResult
    public func untilZero() async -> Bool {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Under the lock: a cancel handler that ran before this registration finds
                // nothing to resume, and this look sees the cancellation instead.
                let answer: Bool? = state.withLock { state in
                    if state.remaining <= 0 { return true }
                    if Task.isCancelled { return false }
                    state.waiters[id] = continuation
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: false)
        }
    }
}
