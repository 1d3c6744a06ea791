import Foundation

// The article's state-enum base operation and its CompletionOperation ("OperationQueue +
// Asynchronous Code: Everything You Need to Know", bugorbn, HackerNoon, 2024/03/17), kept with
// their bugs so that the tests can show each one. Chapter 4's CompletionOperation is built on
// the finished base instead (AsyncOperation, chapter 3), which fixes them.
//
// Changed from the article, each for a reason named beside it: the names (the article's
// `AsyncOperation` and `CompletionOperation` are the package's own types), `open` instead of
// `public` (the tests subclass them from another module), and `@unchecked Sendable` (Swift 6
// asks every Operation subclass to restate it).

/// The article's `AsyncOperation`: a state enum whose key string comes from its case name.
///
/// Its three bugs, each marked "Bug" below:
/// 1. `start()` calls `main()` before it sets `.executing`. Work that completes at once (or
///    quickly, on another thread) sets `.finished` first, then `start()` sets `.executing`:
///    the operation claims to be executing for ever. (With the article's two main-queue hops
///    that takes a race: `ArticleCompletionOperation`.)
/// 2. `cancel()` sets `.finished`, even for an operation still waiting in its queue —
///    chapter 3's "went isFinished=YES without being started".
/// 3. `state` is read and written from several threads without a lock: a data race, which
///    ThreadSanitizer reports (`Scripts/race-demos`).
open class PopularStateOperation: Operation, @unchecked Sendable {  // the article's `AsyncOperation`
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

    public override init() {}

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

/// The article's no-argument closure, and its closure of one argument, as it names them.
/// `@Sendable` is Swift 6's: the block's completion is called from a `DispatchQueue.main`
/// closure, and a plain closure sent there is an error ("sending 'completion' risks causing
/// data races").
public typealias VoidClosure = @Sendable () -> Void
public typealias Closure<T> = (T) -> Void

/// The article's `CompletionOperation`, as written: `main()` hops to `DispatchQueue.main` to run
/// the block, and the block's completion hops there again to set `.finished`.
///
/// Both hops need a main thread that serves the main queue (an app's run loop; in a
/// command-line program `dispatchMain()` or `RunLoop.main`). They also hide bug 1 most of the
/// time: `start()` sets `.executing` right after `main()` has only scheduled the first hop, so
/// the operation ends "executing" only when both hops run before that line — a race, which
/// `Scripts/benchmark` counts (chapter 4's section of Chapters/MEASUREMENTS.md).
open class ArticleCompletionOperation: PopularStateOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a `let` to its superclass (which is not safe: bug 3).
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

/// The article's `CompletionOperation` without its two `DispatchQueue.main` hops: the block
/// runs in `main()`, and its completion sets `.finished` on whatever thread calls it. The tests
/// use it so that each bug of the base shows on demand, in any process; the article's own call
/// site runs against `ArticleCompletionOperation` (`Chapter4ArticleTests`).
open class PopularCompletionOperation: PopularStateOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a `let` to its superclass (which is not safe: bug 3).
    // @Sendable: without the hops, the block and its completion cross threads.
    private let work: @Sendable (_ complete: @escaping @Sendable () -> Void) -> Void

    public init(_ work: @escaping @Sendable (_ complete: @escaping @Sendable () -> Void) -> Void) {
        self.work = work
    }

    open override func main() {
        work { self.state = .finished }  // the article's second hop, made in place
    }
}
