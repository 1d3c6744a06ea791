// The chapter's pictures: reporting subclasses of the chapter's operations, which main.swift
// makes instead of the plain ones. Each reports what happens to its operation (ChapterSupport's
// OperationWatch) and changes nothing else: every override calls the superclass's own.
import ChapterSupport
import Foundation
import OperationBasics

extension Reporting {
    /// An `AnnouncingOperation` that reports `start()`, executing, `main()` returning, finished
    /// and its completion block.
    final class AnnouncingOperation: OperationBasics.AnnouncingOperation, @unchecked Sendable {
        // @unchecked Sendable: adds a thread-safe watch to a thread-safe superclass.
        private let watch = OperationWatch()

        override init(_ name: String, report: @escaping @Sendable (String) -> Void) {
            super.init(name, report: report)
            watch.made(self)
        }

        override func start() { watch.start(self) { super.start() } }
        override func main() { watch.synchronousMain(self, reportingReturn: true) { super.main() } }

        override var completionBlock: (@Sendable () -> Void)? {
            get { super.completionBlock }
            set { super.completionBlock = watch.completion(of: self, newValue) }
        }
    }
}
