import Dispatch
import ManualState

/// The article's `FileUploadOperation`, on the article's own base (chapter 2's
/// `BarrierQueueOperation`: flags behind a concurrent queue, `start()` that finishes a
/// cancelled operation, an open `finish()`), with `LocalUploadTask` in place of
/// `URLSession.shared.uploadTask(with:fromFile:)`.
///
/// What to see (`Chapter3ArticleTests`): `main()` creates the upload task and never calls
/// `resume()` on it, so the upload never starts, its completion never runs, and the operation
/// never finishes — until someone cancels it, which ends the task and so calls its completion.
/// Its `cancel()` also stops the task before it sets `isCancelled`, the reverse of
/// `UploadOperation`: a completion that runs between the two sees an operation that is not
/// cancelled yet.
public final class ArticleFileUploadOperation: BarrierQueueOperation, @unchecked Sendable {
    // @unchecked Sendable: `uploadTask` is a plain `var`, as in the article. main() writes it
    // and then calls `createdItsTask`; the tests call cancel() only after that call, so the
    // write happens before the read.
    private let chunkCount: Int
    private let pace: DispatchTimeInterval
    private let resumesItsTask: Bool
    private let createdItsTask: @Sendable () -> Void
    private var uploadTask: LocalUploadTask?

    /// - Parameters:
    ///   - resumesItsTask: false is the article's code; true adds the missing `resume()`.
    ///   - createdItsTask: called at the end of `main()`, once the task exists.
    public init(
        chunkCount: Int, pace: DispatchTimeInterval, resumesItsTask: Bool = false,
        createdItsTask: @escaping @Sendable () -> Void = {}
    ) {
        self.chunkCount = chunkCount
        self.pace = pace
        self.resumesItsTask = resumesItsTask
        self.createdItsTask = createdItsTask
    }

    public override func main() {
        uploadTask = LocalUploadTask(chunkCount: chunkCount, pace: pace) { _ in
            // Handle the response, then finish — as the article's completion does.
            self.finish()
        }
        // The article stops here: no uploadTask?.resume().
        if resumesItsTask { uploadTask?.resume() }
        createdItsTask()
    }

    public override func cancel() {
        uploadTask?.cancel()  // first the task...
        super.cancel()  // ...then the flag: the reverse of UploadOperation
    }
}
