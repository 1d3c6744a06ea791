import AsyncOperations

/// How far a batch of jobs has got: `completed` of `total`.
public struct BatchProgress: Sendable, Equatable, CustomStringConvertible {
    public let completed: Int
    public let total: Int

    public init(completed: Int, total: Int) {
        self.completed = completed
        self.total = total
    }

    public var description: String { "\(completed)/\(total)" }
}

/// Progress as an `AsyncStream`, the structured counterpart of an `OperationQueue`'s
/// `progress` (and its KVO): runs `body` on every element, at most `width` at a time, and
/// yields a `BatchProgress` after each one finishes; the stream ends when all have.
///
/// Each child counts and yields under one lock, so `completed` only grows. The
/// stream buffers every value, so a slow reader misses none. When the stream terminates —
/// the reader's task is cancelled, or the reader lets go of the stream — the work is
/// cancelled. (Leaving a `for await` loop alone does not: the stream may still be read.)
public func progressOfRunning<Element: Sendable>(
    _ elements: [Element],
    width: Int,
    _ body: @escaping @Sendable (Element) async throws -> Void
) -> AsyncStream<BatchProgress> {
    let (stream, progress) = AsyncStream.makeStream(of: BatchProgress.self)
    let work = Task {
        let total = elements.count
        let completed = Locked(0)
        _ = try? await withWidthLimit(width, over: elements) { element in
            try await body(element)
            completed.withLock { completed in
                completed += 1
                progress.yield(BatchProgress(completed: completed, total: total))
            }
        }
        progress.finish()
    }
    progress.onTermination = { _ in work.cancel() }
    return stream
}
