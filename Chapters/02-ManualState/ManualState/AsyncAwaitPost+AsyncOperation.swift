import Dispatch
import Foundation

extension AsyncAwaitPost {
    /// The post's base operation. The same lock queue and announcing setters as
    /// `ConcurrentSolutionsPost.AsyncOperation`, with five differences: `start()` prints
    /// nothing; the overridden flags' setters are not private, and the stored flags are
    /// readable from outside (`private(set)`); `main()` is empty where the other post's traps,
    /// so a subclass that forgets to override it stays executing for ever; the lock queue has
    /// another label; and `finish()` sets `isFinished` **before** it clears `isExecuting` — so
    /// everyone who learns "finished" (dependents, waiters, the completion block) can still
    /// read `isExecuting == true` (chapter 2's README, and `FinishOrderTests`).
    ///
    /// Changes from the post:
    /// - `open`/`public` instead of the post's default access: subclasses and tests live in
    ///   other modules of this package. Not Swift 6; the package's layout.
    /// - `@unchecked Sendable`, restated: Swift 6 warns on a subclass of `Operation` without
    ///   it (and this package builds with warnings as errors). What makes it true for the
    ///   overridden flags: `_isExecuting` and `_isFinished` are written only in barrier blocks
    ///   on `lockQueue`, and `isExecuting`/`isFinished` read them with `sync` there. (Reading
    ///   `_isExecuting` or `_isFinished` directly, as the post allows, bypasses the queue.)
    open class AsyncOperation: Operation, @unchecked Sendable {
        open override var isAsynchronous: Bool { true }

        private let lockQueue = DispatchQueue(label: "com.asyncOperation", attributes: .concurrent)

        public private(set) var _isExecuting = false
        open override var isExecuting: Bool {
            get {
                lockQueue.sync { _isExecuting }
            }
            set {
                willChangeValue(forKey: "isExecuting")
                lockQueue.sync(flags: .barrier) {
                    _isExecuting = newValue
                }
                didChangeValue(forKey: "isExecuting")
            }
        }

        public private(set) var _isFinished = false
        open override var isFinished: Bool {
            get {
                lockQueue.sync { _isFinished }
            }
            set {
                willChangeValue(forKey: "isFinished")
                lockQueue.sync(flags: .barrier) {
                    _isFinished = newValue
                }
                didChangeValue(forKey: "isFinished")
            }
        }

        open override func main() {
            // Implementation: subclasses start their work here and call finish(). A subclass
            // that forgets to stays executing for ever (Chapter2ArticleTests).
        }

        open override func start() {
            guard !isCancelled else {
                finish()
                return
            }
            isFinished = false
            isExecuting = true
            main()
        }

        open func finish() {
            isFinished = true
            isExecuting = false
        }
    }
}
