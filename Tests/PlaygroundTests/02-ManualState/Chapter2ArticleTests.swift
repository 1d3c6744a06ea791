import AsyncOperations
import Dispatch
import Foundation
import ManualState
import TestSupport
import Testing

// The two posts' base operations, as written (ConcurrentSolutionsPost and AsyncAwaitPost),
// run as their call sites run them. The one difference between them that shows, the order of
// the two writes in finish(), is FinishOrderTests'.

@Suite("Chapter 2 — the posts' base operations, as written")
struct Chapter2ArticleTests {
    @Test("AsyncAwaitPost's operation: a dependent starts only after finish()")
    func asyncAwaitPostDependency() async {
        let held = HeldQueue()
        let upstream = FinishingOnAsyncAwaitPost(on: held.queue)
        let dependent = BlockOperation {}
        dependent.addDependency(upstream)
        let queue = OperationQueue()
        queue.add([upstream, dependent])
        #expect(await upstream.started.wait())
        #expect(upstream.isExecuting && !dependent.isReady, "running, its work held back: the dependent waits")
        held.release()
        #expect(await queueLearnsFinished(dependent))
        #expect(upstream.isFinished && !upstream.isExecuting)
    }

    @Test("both posts: an operation cancelled before it starts finishes in start(), without main()")
    func cancelledBeforeStart() async {
        let asyncAwait = FinishingOnAsyncAwaitPost(on: .global())
        let concurrentSolutions = FinishingOnConcurrentSolutionsPost()
        asyncAwait.cancel()
        concurrentSolutions.cancel()
        #expect(await OperationQueue().runs([asyncAwait, concurrentSolutions]))
        #expect(!asyncAwait.started.isRaised && !concurrentSolutions.mainRan.isRaised)
        #expect(asyncAwait.isFinished && !asyncAwait.isExecuting)
        #expect(concurrentSolutions.isFinished && !concurrentSolutions.isExecuting)
    }

    @Test("AsyncAwaitPost's main() is empty: a subclass that forgets to override it stays executing (bounded)")
    func forgottenMainStaysExecuting() async {
        let operation = ForgetsMain()
        OperationQueue().addOperation(operation)
        #expect(await operation.started.wait())
        #expect(await queueDoesNotLearnFinished(operation, within: 0.5), "nothing ever calls finish()")
        #expect(operation.isExecuting && !operation.isFinished)
        // It stays executing for good: the queue, and this operation, are never freed.
    }

    #if os(macOS) || os(Linux)
        @Test("ConcurrentSolutionsPost's main() traps: a subclass that forgets to override it crashes", .exitTest)
        func forgottenMainTraps() async {
            await #expect(processExitsWith: .failure) {
                ForgetsMainOnConcurrentSolutionsPost().start()
            }
        }
    #endif
}

/// A subclass of `AsyncAwaitPost.AsyncOperation` that forgets to override `main()`.
private final class ForgetsMain: AsyncAwaitPost.AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: a Flag only, on the post's thread-safe base.
    let started = Flag()

    override func start() {
        super.start()
        started.raise()
    }
}

/// The same mistake on `ConcurrentSolutionsPost.AsyncOperation`.
private final class ForgetsMainOnConcurrentSolutionsPost: ConcurrentSolutionsPost.AsyncOperation,
    @unchecked Sendable
{
    // @unchecked Sendable: adds nothing to the post's thread-safe base.
}

/// `AsyncAwaitPost.AsyncOperation` as written; its work finishes on `workQueue`.
private final class FinishingOnAsyncAwaitPost: AsyncAwaitPost.AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: constants only, on the post's thread-safe base.
    let started = Flag()
    private let workQueue: DispatchQueue

    init(on workQueue: DispatchQueue) {
        self.workQueue = workQueue
    }

    override func main() {
        started.raise()
        workQueue.async { self.finish() }
    }
}
