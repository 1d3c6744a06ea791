// The chapter's pictures: reporting subclasses of the chapter's operations, which main.swift
// makes instead of the plain ones. Each reports what happens to its operation (ChapterSupport's
// OperationWatch) and changes nothing else: every override calls the superclass's own.
import ChapterSupport
import Foundation
import ResultOperations

extension Reporting {
    /// An `UnfurlURLOperation` that reports `start()`, executing, cancelled and finished, and
    /// its work: its request, from `main()` until its answer (or its cancellation) finishes the
    /// operation.
    final class UnfurlURLOperation: ResultOperations.UnfurlURLOperation, @unchecked Sendable {
        // @unchecked Sendable: adds a thread-safe watch to a thread-safe superclass.
        private let watch = OperationWatch()

        override init(shortURL: URL, web: any HeadRequester) {
            super.init(shortURL: shortURL, web: web)
            watch.made(self)
            onCancel(watch.cancelTookEffect)
        }

        override func start() { watch.start(self) { super.start() } }
        override func main() { watch.main(self, work: true) { super.main() } }
        override var isExecuting: Bool { watch.executing(self, super.isExecuting) }
        override var isFinished: Bool { watch.finished(self, super.isFinished) }
        override var isCancelled: Bool { watch.cancelled(self, super.isCancelled) }
    }

    /// A `TwiceFinishingOperation` that reports `start()`, executing, cancelled and finished.
    final class TwiceFinishingOperation: chapter6.TwiceFinishingOperation, @unchecked Sendable {
        // @unchecked Sendable: adds a thread-safe watch to a thread-safe superclass.
        private let watch = OperationWatch()

        override init() {
            super.init()
            watch.made(self)
            onCancel(watch.cancelTookEffect)
        }

        override func start() { watch.start(self) { super.start() } }
        override var isExecuting: Bool { watch.executing(self, super.isExecuting) }
        override var isFinished: Bool { watch.finished(self, super.isFinished) }
        override var isCancelled: Bool { watch.cancelled(self, super.isCancelled) }
    }
}
