// The chapter's pictures: reporting subclasses of the chapter's operations, which main.swift makes
// instead of the plain ones. Each reports what happens to its operation (ChapterSupport's
// OperationWatch) and changes nothing else: every override calls the superclass's own.
import ChapterSupport
import Dispatch
import ManualState

extension Reporting {
    /// A `DelayedPrintOperation` that reports executing and finished — when the queue reads
    /// them — and draws what it prints in its own lane.
    final class DelayedPrintOperation: ManualState.DelayedPrintOperation, @unchecked Sendable {
        // @unchecked Sendable: adds a thread-safe watch to a thread-safe superclass.
        private let watch: OperationWatch

        init(after delay: DispatchTimeInterval, report: @escaping @Sendable (String) -> Void) {
            let watch = OperationWatch()
            self.watch = watch
            super.init(after: delay) { line in watch.inLane { report(line) } }
            watch.made(self)
        }

        override var isExecuting: Bool { watch.executing(self, super.isExecuting) }
        override var isFinished: Bool { watch.finished(self, super.isFinished) }
    }
}

extension Reporting {
    /// The post's `AsyncOperationWithExample`, reporting `start()`, and executing and finished
    /// when the queue reads them. What it prints is read from the program's output.
    final class AsyncOperationWithExample: ConcurrentSolutionsPost.AsyncOperationWithExample, @unchecked Sendable {
        // @unchecked Sendable: adds a thread-safe watch to the post's operation.
        private let watch = OperationWatch()

        override init(delay: DispatchTimeInterval) {
            super.init(delay: delay)
            watch.made(self)
        }

        override func start() { watch.start(self) { super.start() } }
        override var isExecuting: Bool { watch.executing(self, super.isExecuting) }
        override var isFinished: Bool { watch.finished(self, super.isFinished) }
    }
}
