// The chapter's pictures: reporting subclasses of the chapter's operations, which main.swift
// makes instead of the plain ones. Each reports what happens to its operation (ChapterSupport's
// OperationWatch) and changes nothing else: every override calls the superclass's own.
import Cancellation
import ChapterSupport
import Dispatch

extension Reporting {
    /// A `CancellableDelayedPrintOperation` that reports `start()`, executing, cancelled and
    /// finished, and draws what it prints in its own lane.
    final class CancellableDelayedPrintOperation: Cancellation.CancellableDelayedPrintOperation,
        @unchecked Sendable
    {
        // @unchecked Sendable: adds a thread-safe watch to a thread-safe superclass.
        private let watch: OperationWatch

        override init(after delay: DispatchTimeInterval, report: @escaping @Sendable (String) -> Void) {
            let watch = OperationWatch()
            self.watch = watch
            super.init(after: delay) { line in watch.inLane { report(line) } }
            watch.made(self)
            onCancel(watch.cancelTookEffect)
        }

        override func start() { watch.start(self) { super.start() } }
        override var isExecuting: Bool { watch.executing(self, super.isExecuting) }
        override var isFinished: Bool { watch.finished(self, super.isFinished) }
        override var isCancelled: Bool { watch.cancelled(self, super.isCancelled) }
    }

    /// An `UploadOperation` that reports `start()`, executing, cancelled and finished, and its
    /// work: the upload, from `main()` until its end finishes the operation. What its progress
    /// callback prints is drawn in its own lane.
    final class UploadOperation: Cancellation.UploadOperation, @unchecked Sendable {
        // @unchecked Sendable: adds a thread-safe watch to a thread-safe superclass.
        private let watch: OperationWatch

        override init(
            chunkCount: Int, pace: DispatchTimeInterval,
            onProgress: @escaping @Sendable (Progress, Cancellation.UploadOperation) -> Void = { _, _ in }
        ) {
            let watch = OperationWatch()
            self.watch = watch
            super.init(chunkCount: chunkCount, pace: pace) { progress, operation in
                watch.inLane { onProgress(progress, operation) }
            }
            watch.made(self)
            onCancel(watch.cancelTookEffect)
        }

        override func start() { watch.start(self) { super.start() } }
        override func main() { watch.main(self, work: true) { super.main() } }
        override var isExecuting: Bool { watch.executing(self, super.isExecuting) }
        override var isFinished: Bool { watch.finished(self, super.isFinished) }
        override var isCancelled: Bool { watch.cancelled(self, super.isCancelled) }
    }
}
