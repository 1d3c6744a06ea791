// The chapter's pictures: a reporting subclass of the chapter's operation, which main.swift makes
// instead of the plain one where a section is drawn. It reports what happens to its operation
// (ChapterSupport's OperationWatch) and changes nothing else: every override calls the
// superclass's own.
import ChapterSupport
import TaskOperations

extension Reporting {
    /// A `TaskOperation` that reports `start()`, executing, cancelled and finished, and its work:
    /// the closure its task runs, from when the task begins it until it returns or throws.
    final class TaskOperation<Success: Sendable>: TaskOperations.TaskOperation<Success>, @unchecked Sendable {
        // @unchecked Sendable: adds a thread-safe watch to a thread-safe superclass.
        private let watch: OperationWatch

        // main() is final: the closure is wrapped instead, as chapter 1's subclass wraps its work.
        override init(priority: TaskPriority? = nil, _ work: @escaping Work) {
            let watch = OperationWatch()
            self.watch = watch
            super.init(priority: priority) { try await watch.asynchronousWork(work) }
            watch.made(self)
            onCancel(watch.cancelTookEffect)
        }

        override func start() { watch.start(self) { super.start() } }
        override var isExecuting: Bool { watch.executing(self, super.isExecuting) }
        override var isFinished: Bool { watch.finished(self, super.isFinished) }
        override var isCancelled: Bool { watch.cancelled(self, super.isCancelled) }
    }
}
