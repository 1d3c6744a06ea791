import AsyncOperations

/// `maxConcurrentOperationCount` for structured concurrency: runs `body` on every element in
/// a task group that keeps at most `width` children running, and returns the results in the
/// order of `elements` (not the order they finished).
///
/// The group starts `width` children, then one more each time one finishes. If `body`
/// throws, the group cancels the children still running, starts no more, and rethrows the
/// error. Cancelling the calling task cancels every child, as `cancelAllOperations()` would.
public func withWidthLimit<Element: Sendable, Value: Sendable>(
    _ width: Int,
    over elements: [Element],
    _ body: @escaping @Sendable (Element) async throws -> Value
) async throws -> [Value] {
    precondition(width > 0, "a width limit must be at least 1")
    return try await withThrowingTaskGroup(of: (Int, Value).self) { group in
        var values = [Value?](repeating: nil, count: elements.count)
        var next = 0
        // The first `width` children; `next` is the index of the first element not started.
        while next < min(width, elements.count) {
            let index = next
            group.addTask { (index, try await body(elements[index])) }
            next += 1
        }
        // Each finished child makes room for one more.
        while let (index, value) = try await group.next() {
            values[index] = value
            if next < elements.count, !Task.isCancelled {
                let index = next
                group.addTask { (index, try await body(elements[index])) }
                next += 1
            }
        }
        try Task.checkCancellation()  // cancelled before every element started
        return values.map { $0! }  // every child returned: every slot is filled
    }
}

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
