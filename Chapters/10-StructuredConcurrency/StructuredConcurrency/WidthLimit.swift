import AsyncOperations

/// `maxConcurrentOperationCount` for structured concurrency: runs `body` on every element in
/// a task group that keeps at most `width` children running, and returns the results in the
/// order of `elements` (not the order they finished).
///
/// The group starts `width` children, then one more each time one finishes. If `body`
/// throws, the group cancels the children still running, starts no more, and rethrows the
/// error. Cancelling the calling task cancels every child, as `cancelAllOperations()` would,
/// and starts no more: then it throws `CancellationError`, unless every element had started
/// and returned its value.
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
        // Cancelled before every element started: some slots stay empty.
        guard next == elements.count else { throw CancellationError() }
        return values.map { $0! }  // every child returned: every slot is filled
    }
}
