// The chapter's pictures: a reporting subclass of the chapter's operation, which main.swift makes
// instead of the plain one. It reports what happens to its operation (ChapterSupport's
// OperationWatch) and changes nothing else: every override calls the superclass's own.
import ChapterSupport
import CompletionOperations

extension Reporting {
    /// A `CompletionOperation` that reports `start()`, executing, cancelled and finished, and
    /// its work: from `main()`, which runs the closure, until its callback finishes the operation.
    final class CompletionOperation: CompletionOperations.CompletionOperation, @unchecked Sendable {
        // @unchecked Sendable: adds a thread-safe watch to a thread-safe superclass.
        private let watch = OperationWatch()

        override init(_ work: @escaping Work) {
            super.init(work)
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
