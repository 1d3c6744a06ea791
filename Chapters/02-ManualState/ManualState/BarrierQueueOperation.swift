import Foundation

/// The state handling of the popular articles, kept for comparison: the flags live behind a
/// concurrent `DispatchQueue`: reads are `sync`, writes are `sync(flags: .barrier)`.
///
/// It is correct, but every read is a queue hop and every write allocates a block; the
/// benchmark (`Scripts/benchmark`) measures what that costs next to `NSLock` and `Mutex`.
/// The write must be a *sync* barrier: `didChangeValue` reads the getters right after it,
/// and an `async` barrier could still be pending then.
open class BarrierQueueOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: `executing` and `finished` are only touched on `stateQueue`:
    // read with sync, written with barrier blocks.
    private let stateQueue = DispatchQueue(label: "BarrierQueueOperation.state", attributes: .concurrent)
    private var executing = false
    private var finished = false

    open override var isAsynchronous: Bool { true }
    open override var isExecuting: Bool { stateQueue.sync { executing } }
    open override var isFinished: Bool { stateQueue.sync { finished } }

    open override func start() {
        guard !isCancelled else {
            finish()  // as the article does: a subclass's finish() sees this path too (chapter 6)
            return
        }
        willChangeValue(forKey: "isExecuting")
        stateQueue.sync(flags: .barrier) { executing = true }
        didChangeValue(forKey: "isExecuting")
        main()
    }

    open override func main() {
        preconditionFailure("\(type(of: self)) must override main() and call finish() when its work is done")
    }

    /// Open, as in the article: chapter 6's popular result operation overrides it.
    open func finish() {
        setFinished()
    }

    private func setFinished() {
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        stateQueue.sync(flags: .barrier) {
            executing = false
            finished = true
        }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}
