import Dispatch
import Foundation

extension ConcurrentSolutionsPost {
    /// The post's final base operation: two flags behind a concurrent `DispatchQueue`, read
    /// with `sync`, written with `sync(flags: .barrier)` by setters that announce the change
    /// around the write; `start()` prints "Starting" and finishes an operation cancelled
    /// before it started; `finish()` clears `isExecuting`, then sets `isFinished`.
    ///
    /// Changes from the post:
    /// - `open` instead of the post's default access: subclasses live in other modules of
    ///   this package (chapters 3, 6 and 7 and the tests). Not Swift 6; the package's layout.
    /// - `@unchecked Sendable`, restated: Swift 6 warns on a subclass of `Operation` without
    ///   it (and this package builds with warnings as errors). What makes it true:
    ///   `_isExecuting` and `_isFinished` are touched only on `lockQueue` — read with `sync`,
    ///   written with barrier blocks.
    /// - The `fatalError` message of `main()` is written here, not copied (the post's says,
    ///   in other words, that subclasses implement `main()` and do not call the superclass's).
    ///   Not Swift 6: this package does not reproduce the articles' sentences.
    open class AsyncOperation: Operation, @unchecked Sendable {
        private let lockQueue = DispatchQueue(label: "com.onlinecode.asyncoperation", attributes: .concurrent)

        open override var isAsynchronous: Bool {
            return true
        }

        private var _isExecuting: Bool = false
        open override private(set) var isExecuting: Bool {
            get {
                return lockQueue.sync { () -> Bool in
                    return _isExecuting
                }
            }
            set {
                willChangeValue(forKey: "isExecuting")
                lockQueue.sync(flags: [.barrier]) {
                    _isExecuting = newValue
                }
                didChangeValue(forKey: "isExecuting")
            }
        }

        private var _isFinished: Bool = false
        open override private(set) var isFinished: Bool {
            get {
                return lockQueue.sync { () -> Bool in
                    return _isFinished
                }
            }
            set {
                willChangeValue(forKey: "isFinished")
                lockQueue.sync(flags: [.barrier]) {
                    _isFinished = newValue
                }
                didChangeValue(forKey: "isFinished")
            }
        }

        open override func start() {
            print("Starting")
            guard !isCancelled else {
                finish()
                return
            }

            isFinished = false
            isExecuting = true
            main()
        }

        open override func main() {
            fatalError("\(type(of: self)) must override main() and must not call super.main()")
        }

        open func finish() {
            isExecuting = false
            isFinished = true
        }
    }
}
