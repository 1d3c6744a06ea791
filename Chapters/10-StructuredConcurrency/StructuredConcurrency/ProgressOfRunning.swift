import AsyncOperations

/// Progress as an `AsyncThrowingStream`, the structured counterpart of an `OperationQueue`'s
/// `progress` (observed with KVO on Darwin, polled on Linux): runs `body` on every element, at
/// most `width` at a time, and yields a `BatchProgress` after each one finishes; the stream ends
/// when all have.
///
/// Each child counts and yields under one lock, so `completed` only grows. By default the
/// stream buffers every value, so a slow reader misses none; a progress bar, which shows only
/// the latest, can pass `bufferingPolicy: .bufferingNewest(1)`. If `body` throws, the children
/// still running are cancelled, none starts any more, and the stream throws that error after
/// the progress it yielded before: it never ends short of N/N without saying why. When the
/// stream terminates — the reader's task is cancelled, or the reader lets go of the stream —
/// the work is cancelled. (Leaving a `for try await` loop alone does not: the stream may still
/// be read.) A `width` below 1 traps here, at the call.
public func progressOfRunning<Element: Sendable>(
    _ elements: [Element],
    width: Int,
    bufferingPolicy: AsyncThrowingStream<BatchProgress, any Error>.Continuation.BufferingPolicy = .unbounded,
    _ body: @escaping @Sendable (Element) async throws -> Void
) -> AsyncThrowingStream<BatchProgress, any Error> {
    precondition(width > 0, "progressOfRunning: a width must be at least 1, not \(width)")
    let (stream, progress) = AsyncThrowingStream.makeStream(of: BatchProgress.self, bufferingPolicy: bufferingPolicy)
    let work = Task {
        let total = elements.count
        let completed = Locked(0)
        do {
            _ = try await withWidthLimit(width, over: elements) { element in
                try await body(element)
                completed.withLock { completed in
                    completed += 1
                    progress.yield(BatchProgress(completed: completed, total: total))
                }
            }
            progress.finish()
        } catch {
            progress.finish(throwing: error)  // nothing, if the reader has let go already
        }
    }
    progress.onTermination = { _ in work.cancel() }
    return stream
}
