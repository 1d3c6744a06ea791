// Exercise 2 — announce the state changes (about 10 minutes).
// Chapter 2: Chapters/02-ManualState/README.md. Check it: Scripts/workshop check 2
import Dispatch
import Foundation

/// An asynchronous operation that manages its own state, as in chapter 2: subclasses start
/// their work in `main()` and call `finish()` when it is done.
open class AnnouncingOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: `executing` and `finished` are only touched under `lock`.
    private let lock = NSLock()
    private var executing = false
    private var finished = false

    public override init() {}

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool { lock.withLock { executing } }
    open override var isFinished: Bool { lock.withLock { finished } }

    open override func start() {
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        main()
    }

    /// Ends the operation: the queue, waiters and dependents must learn it now.
    public func finish() {
        // Outside the lock: Foundation reads isExecuting/isFinished from inside
        // didChangeValue, and those getters take the lock.
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        lock.withLock {
            executing = false
            finished = true
        }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}

/// Reports "Executing" from `workQueue`, then finishes.
public final class DelayedGreeting: AnnouncingOperation, @unchecked Sendable {
    // @unchecked Sendable: constants only, on a thread-safe superclass.
    private let workQueue: DispatchQueue
    private let report: @Sendable (String) -> Void

    public init(on workQueue: DispatchQueue, report: @escaping @Sendable (String) -> Void) {
        self.workQueue = workQueue
        self.report = report
    }

    public override func main() {
        workQueue.async {
            self.report("Executing")
            self.finish()
        }
    }
}
