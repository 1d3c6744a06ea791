import AsyncOperations

/// Counts how many calls run at the same time, and the most there ever were. The chapter and
/// the tests use it to show a width limit holding.
public final class ConcurrencyGauge: Sendable {
    private let counts = Locked((running: 0, most: 0, finished: 0))

    public init() {}

    /// The most calls that were ever running at once.
    public var most: Int { counts.withLock { $0.most } }
    /// How many calls have finished.
    public var finished: Int { counts.withLock { $0.finished } }

    /// Runs `body`, counted as running while it does.
    public func measure<Value>(_ body: () async throws -> Value) async rethrows -> Value {
        counts.withLock { counts in
            counts.running += 1
            counts.most = max(counts.most, counts.running)
        }
        defer {
            counts.withLock { counts in
                counts.running -= 1
                counts.finished += 1
            }
        }
        return try await body()
    }

    /// The same for synchronous work (the body of a `BlockOperation`).
    public func measureSynchronous<Value>(_ body: () throws -> Value) rethrows -> Value {
        counts.withLock { counts in
            counts.running += 1
            counts.most = max(counts.most, counts.running)
        }
        defer {
            counts.withLock { counts in
                counts.running -= 1
                counts.finished += 1
            }
        }
        return try body()
    }
}
