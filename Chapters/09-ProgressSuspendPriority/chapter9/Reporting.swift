// The chapter's pictures: a reporting subclass of the chapter's operation, which main.swift makes
// instead of the plain one where a section is drawn. It reports what happens to its operation
// (ChapterSupport's OperationWatch) and changes nothing else: every override calls the
// superclass's own.
import ChapterSupport
import ProgressSuspendPriority

extension Reporting {
    /// A `SteppedOperation` that reports `start()`, executing, cancelled and finished.
    final class SteppedOperation: ProgressSuspendPriority.SteppedOperation, @unchecked Sendable {
        // @unchecked Sendable: adds a thread-safe watch to a thread-safe superclass.
        private let watch = OperationWatch()

        override init(
            _ label: String, steps: Int, turnstile: Turnstile, report: @escaping @Sendable (String) -> Void = { _ in }
        ) {
            super.init(label, steps: steps, turnstile: turnstile, report: report)
            watch.made(self)
            onCancel(watch.cancelTookEffect)
        }

        override func start() { watch.start(self) { super.start() } }
        override var isExecuting: Bool { watch.executing(self, super.isExecuting) }
        override var isFinished: Bool { watch.finished(self, super.isFinished) }
        override var isCancelled: Bool { watch.cancelled(self, super.isCancelled) }
    }
}
