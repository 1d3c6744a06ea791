import Dispatch
import Foundation

/// The code of the blog post "Asynchronous operations for writing concurrent solutions in
/// Swift" (as onlinecode publishes it), under the post's own names.
///
/// A namespace, so that the post's `AsyncOperation` keeps its name beside the package's own
/// `AsyncOperation` (chapter 3). The post writes `AsyncOperation` three times: the first, broken
/// one is chapter 1's `SyncOnlyOperation`; the middle one, with its example `main()`, is
/// `AsyncOperationWithExample`; the final one keeps the name. Chapter 3 adds the post's
/// `FileUploadOperation`.
public enum ConcurrentSolutionsPost {}

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

    /// The post's middle `AsyncOperation`, its example: `main()` prints "Executing" after a
    /// delay, as a stand-in for long-running work, and then calls `finish()`. The post writes
    /// this `main()` into `AsyncOperation` itself, then leaves `main()` to subclasses in its
    /// final version; here it is a `public final` subclass of that final version (the package's
    /// layout), whose name adds what sets it apart to the post's. So its `start()` is the final
    /// one, which also finishes an operation cancelled before it started. The post waits one
    /// second; the delay is a parameter so that the chapter can pace it and the tests shorten it.
    public final class AsyncOperationWithExample: AsyncOperation, @unchecked Sendable {
        // @unchecked Sendable: adds only a constant to a thread-safe superclass.
        private let delay: DispatchTimeInterval

        public init(delay: DispatchTimeInterval = .seconds(1)) {
            self.delay = delay
        }

        public override func main() {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
                print("Executing")
                self.finish()
            }
        }
    }
}
