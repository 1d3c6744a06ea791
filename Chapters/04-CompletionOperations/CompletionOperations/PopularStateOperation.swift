import Foundation

/// The code of the article "OperationQueue + Asynchronous Code: Everything You Need to Know"
/// (bugorbn, HackerNoon, 2024/03/17), under the article's own names, kept with its bugs so that
/// the tests can show each one. Chapter 4's `CompletionOperation` is built on the finished base
/// instead (`AsyncOperation`, chapter 3), which fixes them.
///
/// A namespace, so that the article's `AsyncOperation` and `CompletionOperation` keep their
/// names beside the package's own. The article writes one `CompletionOperation`; the package
/// also runs it without its two `DispatchQueue.main` hops, and that version adds what sets it
/// apart to the article's name: `CompletionOperationWithoutMainQueue`.
///
/// Changed from the article, each for a reason named beside it: `open` instead of `public` (the
/// tests subclass them from another module), and `@unchecked Sendable` (Swift 6 asks every
/// Operation subclass to restate it).
public enum EverythingToKnowPost {
    /// The article's no-argument closure, and its closure of one argument, as it names them:
    /// plain closures, not `@Sendable`. Swift 6 does not force `@Sendable` on them: at the
    /// article's call site, a closure sent to `DispatchQueue.main` may call the completion (in
    /// top-level code or in a function); only a closure sent to another queue may not ("capture
    /// of 'completion' with non-Sendable type"). `Chapter4ClosureTypeTests` compiles both.
    public typealias VoidClosure = () -> Void
    public typealias Closure<T> = (T) -> Void
}

extension EverythingToKnowPost {
    /// The article's `AsyncOperation`: a state enum whose key string comes from its case name.
    ///
    /// Its three bugs, each marked "Bug" below:
    /// 1. `start()` calls `main()` before it sets `.executing`. Work that completes at once (or
    ///    quickly, on another thread) sets `.finished` first, then `start()` sets `.executing`:
    ///    the operation claims to be executing for ever. (With the article's two main-queue hops
    ///    that takes a race: `CompletionOperation`.)
    /// 2. `cancel()` sets `.finished`, even for an operation still waiting in its queue —
    ///    chapter 3's "went isFinished=YES without being started".
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
            state = .finished  // Bug 2: even if the operation has not started
        }
    }

    /// The article's `CompletionOperation`, as written: `main()` hops to `DispatchQueue.main` to run
    /// the block, and the block's completion hops there again to set `.finished`.
    ///
    /// Both hops need a main thread that serves the main queue (an app's run loop; in a
    /// command-line program `dispatchMain()` or `RunLoop.main`). They also hide bug 1 most of the
    /// time: `start()` sets `.executing` right after `main()` has only scheduled the first hop, so
    /// the operation ends "executing" only when both hops run before that line — a race, which
    /// `Scripts/benchmark` counts (chapter 4's section of Chapters/MEASUREMENTS.md). The article's
    /// call site runs against it in `chapter4-article` (`Chapter4ArticleTests.articleCallSite`).
    // Changed: `open`.
    open class CompletionOperation: AsyncOperation, @unchecked Sendable {
        // Changed: @unchecked Sendable (Swift 6 asks for it). Not safe: it adds only a `let`, but
        // its superclass's state has no lock (bug 3).
        public init(completeBlock: Closure<VoidClosure?>?) {
            self.completeBlock = completeBlock
        }

        open override func main() {
            DispatchQueue.main.async { [weak self] in
                self?.completeBlock? {
                    DispatchQueue.main.async {
                        self?.state = .finished
                    }
                }
            }
        }

        private let completeBlock: Closure<VoidClosure?>?
    }

    /// The article's `CompletionOperation` without its two `DispatchQueue.main` hops. The tests use
    /// it so that each bug of the base shows on demand, in any process, without a main queue to
    /// serve. What differs from the article is named beside each line; the rest is the article's:
    /// the initializer, the optional block and its optional completion (`completion?()`).
    // Changed: the name, which adds what sets it apart to the article's, and `open` (the tests
    // subclass it from another module).
    open class CompletionOperationWithoutMainQueue: AsyncOperation, @unchecked Sendable {
        // Changed: @unchecked Sendable, which Swift 6 asks every Operation subclass to restate. Not
        // safe: it adds only a `let`, but its superclass's state has no lock (bug 3).
        public init(completeBlock: Closure<VoidClosure?>?) {
            self.completeBlock = completeBlock
        }

        open override func main() {
            // Changed: no `DispatchQueue.main.async` around the block; it runs here, on the thread
            // that called start().
            completeBlock? { [weak self] in  // as in the article, a completion after the operation is gone does nothing
                // Changed: no `DispatchQueue.main.async` around this either; `.finished` is set on
                // whatever thread calls the completion.
                self?.state = .finished
            }
        }

        private let completeBlock: Closure<VoidClosure?>?
    }
}
