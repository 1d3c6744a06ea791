// The chapter's pictures: a reporting subclass of the chapter's operation, which main.swift makes
// instead of the plain one. It reports what happens to its operation (ChapterSupport's
// OperationWatch) and changes nothing else: every override calls the superclass's own.
import ChapterSupport
import Dispatch
import SyncOnly

extension Reporting {
    /// A `SyncOnlyOperation` that reports executing, `main()` returning and finished, and its
    /// work starting and ending — wherever it runs.
    final class SyncOnlyOperation: SyncOnly.SyncOnlyOperation, @unchecked Sendable {
        // @unchecked Sendable: adds a thread-safe watch to the superclass's constants.
        private let watch: OperationWatch

        override init(
            after delay: DispatchTimeInterval, on workQueue: DispatchQueue, work: @escaping @Sendable () -> Void
        ) {
            let watch = OperationWatch()
            self.watch = watch
            super.init(after: delay, on: workQueue) { watch.work(work) }
            watch.made(self)
        }

        override func main() { watch.synchronousMain(self, reportingReturn: true) { super.main() } }
    }
}
