// Exercise 0 — dependencies decide the order (about 5 minutes).
// Chapter 0: Chapters/00-OperationBasics/README.md. Check it: Scripts/workshop check 0
import Foundation

/// Three steps of a photo upload: download, then resize, then upload.
public struct PhotoPipeline {
    public let download: BlockOperation
    public let resize: BlockOperation
    public let upload: BlockOperation

    /// The three, in the order a hurried caller might add them: the dependencies must decide.
    public var operations: [Operation] { [upload, resize, download] }
}

/// Makes the pipeline; each step calls `record` with its name when it runs.
///
/// On a queue that runs several operations at once, the order they were added in decides
/// nothing: `resize` must wait for `download`, and `upload` for `resize`.
public func makePhotoPipeline(record: @escaping @Sendable (String) -> Void) -> PhotoPipeline {
    let download = BlockOperation { record("download") }
    let resize = BlockOperation { record("resize") }
    let upload = BlockOperation { record("upload") }
    // TODO: nothing makes resize wait for download, or upload for resize. Add the two
    // dependencies (`addDependency`) that do.
    return PhotoPipeline(download: download, resize: resize, upload: upload)
}
