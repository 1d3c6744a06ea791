// Exercise 10 — a task group that keeps at most `width` children running (about 20 minutes).
// Chapter 10: Chapters/10-StructuredConcurrency/README.md. Check it: Scripts/workshop check 10

/// Runs `transform` on every element, at most `width` at the same time (what an
/// `OperationQueue`'s `maxConcurrentOperationCount` does), and returns the results in the
/// order of `elements`, whatever order they finished in.
///
/// If `transform` throws, the children still running are cancelled, no more start, and the
/// error is rethrown.
public func limitedMap<Element: Sendable, Value: Sendable>(
    _ elements: [Element],
    width: Int,
    _ transform: @escaping @Sendable (Element) async throws -> Value
) async throws -> [Value] {
    precondition(width > 0, "a width limit must be at least 1")
    return try await withThrowingTaskGroup(of: (Int, Value).self) { group in
        var values = [Value?](repeating: nil, count: elements.count)
        var next = 0  // the first element not started yet
        while next < min(width, elements.count) {
            let index = next
            group.addTask { (index, try await transform(elements[index])) }
            next += 1
        }
        // Each child that returns makes room for one more. A child that throws makes
        // `next()` throw: leaving the group cancels the others.
        while let (index, value) = try await group.next() {
            values[index] = value
            if next < elements.count {
                let index = next
                group.addTask { (index, try await transform(elements[index])) }
                next += 1
            }
        }
        return values.map { $0! }  // every child returned: every slot is filled
    }
}
