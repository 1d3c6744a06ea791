// The chapter's pictures: reporting subclasses of the chapter's operations, which main.swift
// makes instead of the plain ones. Each reports what happens to its operation (ChapterSupport's
// OperationWatch) and changes nothing else: every override calls the superclass's own.
import ChainedOperations
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

    /// A `FetchTitleOperation` that reports `start()`, executing, cancelled and finished, and
    /// its work: its request, from `main(with:)` until its answer (or its cancellation)
    /// finishes the operation. (Without an input it finishes without `main(with:)`: no work.)
    final class FetchTitleOperation: ChainedOperations.FetchTitleOperation, @unchecked Sendable {
        // @unchecked Sendable: adds a thread-safe watch to a thread-safe superclass.
        private let watch = OperationWatch()

        override init(url: URL? = nil, web: any PageFetcher) {
            super.init(url: url, web: web)
            watch.made(self)
            onCancel(watch.cancelTookEffect)
        }

        override func start() { watch.start(self) { super.start() } }
        override func main(with url: URL) { watch.main(self, work: true) { super.main(with: url) } }
        override var isExecuting: Bool { watch.executing(self, super.isExecuting) }
        override var isFinished: Bool { watch.finished(self, super.isFinished) }
        override var isCancelled: Bool { watch.cancelled(self, super.isCancelled) }
    }
}
