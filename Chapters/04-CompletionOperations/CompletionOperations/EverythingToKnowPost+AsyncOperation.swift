import Foundation

extension EverythingToKnowPost {
    /// The article's `AsyncOperation`: a state enum whose key string comes from its case name.
    ///
    /// Its three bugs, each marked "Bug" below:
    /// 1. `start()` calls `main()` before it sets `.executing`. Work that completes at once (or
    ///    quickly, on another thread) sets `.finished` first, then `start()` sets `.executing`:
    ///    the operation claims to be executing for ever. (With the article's two main-queue hops
    ///    that takes a race: `CompletionOperation`.)
    /// 2. `cancel()` sets `.finished` at once. For an operation still waiting in its queue that
    ///    is chapter 3's "went isFinished=YES without being started", and on Linux a crash once
    ///    the queue looks for work again; for a running one, the queue goes on (a serial queue
    ///    starts the next operation) while its work still runs.
    /// 3. `state` is read and written from several threads without a lock: a data race, which
    ///    ThreadSanitizer reports (`Scripts/race-demos`).
    open class AsyncOperation: Operation, @unchecked Sendable {
        // @unchecked Sendable: NOT actually safe — see bug 3. Kept to show what goes wrong.

        public enum State: String {
            case ready, executing, finished

            /// "isReady", "isExecuting", "isFinished": the keys Foundation reacts to.
            fileprivate var keyPath: String { "is" + rawValue.capitalized }
        }

        /// Every change posts the old and the new state's key. The pairs match: willSet's
        /// `newValue` and `state` are didSet's `state` and `oldValue` (kvo pairs checked by hand,
        /// for CI's check).
        public var state = State.ready {  // Bug 3: no lock
            willSet {
                willChangeValue(forKey: newValue.keyPath)
                willChangeValue(forKey: state.keyPath)
            }
            didSet {
                didChangeValue(forKey: oldValue.keyPath)
                didChangeValue(forKey: state.keyPath)
            }
        }

        open override var isReady: Bool { super.isReady && state == .ready }
        open override var isExecuting: Bool { state == .executing }
        open override var isFinished: Bool { state == .finished }
        open override var isAsynchronous: Bool { true }

        open override func start() {
            if isCancelled {
                state = .finished
                return
            }
            main()
            state = .executing  // Bug 1: after main(), which may already have finished
        }

        open override func cancel() {
            super.cancel()
            state = .finished  // Bug 2: at once, whether it waits in its queue or its work runs
        }
    }
}
