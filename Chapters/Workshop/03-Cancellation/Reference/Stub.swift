// Exercise 3 — a cancelled operation finishes in `start()`, without running its work (about 10 minutes).
// Chapter 3: Chapters/03-Cancellation/README.md. Check it: Scripts/workshop check 3
import Foundation

/// Chapter 2's operation, which announces its changes, now with cancellation. Subclasses
/// start their work in `main()` and call `finish()` when it is done.
open class CancelAwareOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: `executing` and `finished` are only touched under `lock`.
    private let lock = NSLock()
    private var executing = false
    private var finished = false

    public override init() {}

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool { lock.withLock { executing } }
    open override var isFinished: Bool { lock.withLock { finished } }

    open override func start() {
        // TODO: an operation cancelled before it starts runs its work anyway. If it is
        // cancelled, move it straight to finished (announce "isFinished"; executing stays
        // false) and return without calling main().
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        main()
    }

    /// Ends an executing operation.
    public func finish() {
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

/// Reports "Executing" and finishes.
public final class ReportingOperation: CancelAwareOperation, @unchecked Sendable {
    // @unchecked Sendable: a constant, on a thread-safe superclass.
    private let report: @Sendable (String) -> Void

    public init(report: @escaping @Sendable (String) -> Void) {
        self.report = report
    }

    public override func main() {
        report("Executing")
        finish()
    }
}
