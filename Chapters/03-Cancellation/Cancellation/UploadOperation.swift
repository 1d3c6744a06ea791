import AsyncOperations
import Dispatch
import Recording

/// Chapter 3's example: an operation that uploads a file with an upload task it keeps, so
/// that `cancel()` can stop the upload that is actually running.
public final class UploadOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: the mutable state, `result`, is `Locked`; the rest is `let`.
    public struct Progress: Sendable {
        public let sent: Int
        public let total: Int
    }

    private let chunkCount: Int
    private let pace: DispatchTimeInterval
    private let onProgress: @Sendable (Progress, UploadOperation) -> Void
    private let result = Locked<UploadOutcome?>(nil)

    /// - Parameters:
    ///   - onProgress: called after each chunk with the progress and this operation, for
    ///     example to cancel it.
    public init(
        chunkCount: Int,
        pace: DispatchTimeInterval,
        onProgress: @escaping @Sendable (Progress, UploadOperation) -> Void = { _, _ in }
    ) {
        self.chunkCount = chunkCount
        self.pace = pace
        self.onProgress = onProgress
    }

    /// How the upload ended; nil if it never started (cancelled before it ran).
    public var outcome: UploadOutcome? { result.withLock { $0 } }

    public override func main() {
        // Recorder: the chapter's pictures (nothing unless recorded): the upload is this
        // operation's work, and what the progress callback does is drawn in its lane.
        let upload = LocalUploadTask(
            chunkCount: chunkCount,
            pace: pace,
            onChunkSent: { [chunkCount] sent in
                Recorder.inLane(of: self) { self.onProgress(Progress(sent: sent, total: chunkCount), self) }
            },
            completion: { outcome in
                self.result.withLock { $0 = outcome }
                Recorder.current?.record(.workEnded, self)
                self.finish()  // the operation ends when the upload has really stopped
            }
        )
        Recorder.current?.record(.workStarted, self)
        // Runs once, when the operation is cancelled — at once if a cancel() came before
        // the upload existed. The upload then reports .cancelled, and the operation finishes.
        onCancel { upload.cancel() }
        upload.resume()
    }
}
