import AsyncOperations
import Dispatch

/// A local stand-in for `URLSessionUploadTask`: no network, no file. After `resume()` it
/// "sends" one chunk per `pace` on its own serial queue, and reports the outcome exactly once.
///
/// Like the real task, it keeps running until it is done or `cancel()` is called, and
/// `cancel()` ends it promptly with a cancelled outcome.
public final class LocalUploadTask: Sendable {
    private struct Progress {
        var sent = 0
        var cancelled = false
        var done = false
    }

    private enum Step {
        case nothing
        case sent(Int)
        case ended(UploadOutcome)
    }

    private let chunkCount: Int
    private let pace: DispatchTimeInterval
    /// Released once the outcome is reported: they usually hold whoever started the upload.
    private let callbacks: Locked<Callbacks?>
    private typealias Callbacks = (onChunkSent: @Sendable (Int) -> Void, completion: @Sendable (UploadOutcome) -> Void)
    private let queue = DispatchQueue(label: "LocalUploadTask")
    private let progress = Locked(Progress())

    /// - Parameters:
    ///   - chunkCount: how many chunks make the upload.
    ///   - pace: the time one chunk takes.
    ///   - onChunkSent: called on the task's queue with the number of chunks sent so far;
    ///     a `cancel()` made from here stops the upload before the next chunk.
    ///   - completion: called once, on the task's queue, with the outcome.
    public init(
        chunkCount: Int,
        pace: DispatchTimeInterval,
        onChunkSent: @escaping @Sendable (Int) -> Void = { _ in },
        completion: @escaping @Sendable (UploadOutcome) -> Void
    ) {
        self.chunkCount = chunkCount
        self.pace = pace
        self.callbacks = Locked((onChunkSent, completion))
    }

    public func resume() {
        queue.async { self.step() }
    }

    public func cancel() {
        progress.withLock { $0.cancelled = true }
        // Report now rather than after the pending chunk: the next step sees the flag.
        queue.async { self.step() }
    }

    private func step() {
        let next: Step = progress.withLock { progress in
            if progress.done { return .nothing }
            if progress.cancelled {
                progress.done = true
                return .ended(.cancelled(afterChunks: progress.sent))
            }
            if progress.sent == chunkCount {
                progress.done = true
                return .ended(.uploaded(chunks: chunkCount))
            }
            progress.sent += 1
            return .sent(progress.sent)
        }
        switch next {
        case .nothing:
            break
        case .sent(let sent):
            callbacks.withLock { $0?.onChunkSent }?(sent)
            queue.asyncAfter(deadline: .now() + pace) { self.step() }
        case .ended(let outcome):
            let completion = callbacks.withLock { callbacks in
                defer { callbacks = nil }
                return callbacks?.completion
            }
            completion?(outcome)
        }
    }
}
