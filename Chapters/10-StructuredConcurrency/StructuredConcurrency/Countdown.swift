import AsyncOperations

/// A count that tasks await until it reaches zero: `arrive()` lowers it, from any thread;
/// `untilZero()` suspends (no thread blocked) until it is zero. The chapter uses it to cause
/// an order — "cancel once all three have started" — instead of waiting and hoping.
public final class Countdown: Sendable {
    private struct State {
        var remaining: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Locked<State>

    public init(_ count: Int) {
        state = Locked(State(remaining: count))
    }

    public func arrive() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.remaining -= 1
            guard state.remaining == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }  // outside the lock
    }

    public func untilZero() async {
        await withCheckedContinuation { continuation in
            let zero = state.withLock { state in
                if state.remaining <= 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if zero { continuation.resume() }
        }
    }
}
