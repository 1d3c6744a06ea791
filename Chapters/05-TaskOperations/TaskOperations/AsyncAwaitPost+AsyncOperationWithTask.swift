import Dispatch
import Foundation
import ManualState

extension AsyncAwaitPost {
    /// The generic operation of the article "Asynchronous Operations with Async/Await", as the
    /// article writes it: its own state behind a concurrent lock queue, and `main()` running the
    /// closure in a `Task`. Kept with its weak points for the tests and chapter 5's story.
    ///
    /// Changes from the article: the name — the article calls it `AsyncOperation<Success>`, like
    /// its lock-queue base (`AsyncAwaitPost.AsyncOperation`, chapter 2), and Swift cannot hold both
    /// under one name, so this one adds what sets it apart, its task; `open` and `public` (it lives
    /// in a library; the article's class is not final) — the package's layout; and `@unchecked
    /// Sendable`, restated because Swift 6 warns without it on a subclass of `Operation` (and this
    /// package builds with warnings as errors).
    // @unchecked Sendable is not fully true here: `result` is written by the task and read by
    // `getResult()` without a lock, as in the article (the article reads it only once the
    // operation has finished); the two flags are behind the lock queue.
    open class AsyncOperationWithTask<Success>: Operation, @unchecked Sendable {
        public let task: (() async throws -> Success)
        private var result: Result<Success, Error>?
        public override var isAsynchronous: Bool { true }
        private let lockQueue = DispatchQueue(label: "com.asyncOperation", attributes: .concurrent)

        public init(task: @escaping () async throws -> Success) {
            self.task = task
        }

        public private(set) var _isExecuting = false
        public override var isExecuting: Bool {
            get {
                lockQueue.sync {
                    _isExecuting
                }
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
        public override var isFinished: Bool {
            get {
                lockQueue.sync {
                    _isFinished
                }
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
            // Returns without finish(): cancelled between start() and here, the operation stays
            // executing for ever (chapter 3's EarlyReturnOperation).
            guard !isCancelled else { return }
            // The task is not kept: cancel() cannot reach it, and the work runs to its end.
            Task { [weak self] in
                guard let self else { return }
                do {
                    let result = try await task()
                    self.result = .success(result)
                } catch {
                    self.result = .failure(error)
                }
                finish()
            }
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

        public func getResult() -> Result<Success, Swift.Error>? {
            result
        }
    }
}
