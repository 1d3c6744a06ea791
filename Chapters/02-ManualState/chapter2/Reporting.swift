// The chapter's pictures: a reporting subclass of the chapter's operation, which main.swift makes
// instead of the plain one. It reports what happens to its operation (ChapterSupport's
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
