import AsyncOperations
import Dispatch
import Foundation
import ManualState
import TestSupport
import Testing

@Suite("Chapter 2 — the order of the two writes in finish()")
struct FinishOrderTests {
    #if os(Linux)
        @Test(
            """
            AsyncAwaitPost's finish() sets isFinished before it clears isExecuting: the dependent and \
            the completion block run while the operation still says isExecuting == true
            """)
        func isFinishedFirst() async {
            // Linux: didChangeValue(forKey: "isFinished") releases the dependents, schedules
            // the completion block and lets the queue go on before it returns — before finish()
            // reaches `isExecuting = false`. The operation holds there until both have looked,
            // and then sees that the queue has already let it go.
            // Darwin (inferred, not run on a Mac): the queue learns "finished" by observing the
            // same key, so the same window is expected; when its observers run is not documented.
            let queue = OperationQueue()
            let upstream = HeldBetweenTheWrites(observers: 2) { upstream in
                let held = queue.operations.contains(upstream)
                return "the queue, meanwhile: holds it \(held), isExecuting \(upstream.isExecuting)"
            }
            let seen = observations(of: upstream)
            #expect(await queue.runs([upstream, seen.dependent]))
            #expect(await seen.completionBlockRan.wait())
            #expect(!upstream.gaveUpWaiting, "the dependent and the completion block ran while finish() was held")
            #expect(await upstream.finishReturned.wait())
            #expect(
                (seen.log.events + upstream.whileHeld).sorted() == [
                    "completion block: isFinished true, isExecuting true",
                    "dependent: isFinished true, isExecuting true",
                    "the queue, meanwhile: holds it false, isExecuting true",
                ])
            #expect(upstream.isFinished && !upstream.isExecuting, "consistent again once finish() returned")
        }
    #endif

    @Test("ConcurrentSolutionsPost's finish() clears isExecuting first: whoever learns 'finished' sees it false")
    func isExecutingFirst() async {
        let upstream = FinishingOnConcurrentSolutionsPost()
        let seen = observations(of: upstream)
        #expect(await OperationQueue().runs([upstream, seen.dependent]))
        #expect(await seen.completionBlockRan.wait())
        #expect(
            seen.log.events.sorted() == [
                "completion block: isFinished true, isExecuting false",
                "dependent: isFinished true, isExecuting false",
            ])
    }

    /// A dependent and a completion block that record what `upstream` says when they run.
    private func observations(of upstream: Operation & ObservedFinish) -> (
        dependent: BlockOperation, completionBlockRan: Flag, log: EventLog
    ) {
        let log = EventLog()
        let completionBlockRan = Flag()
        let look = { @Sendable (who: String) in
            log.record("\(who): isFinished \(upstream.isFinished), isExecuting \(upstream.isExecuting)")
            upstream.observerLooked()
        }
        let dependent = BlockOperation { look("dependent") }
        dependent.addDependency(upstream)
        upstream.completionBlock = {
            look("completion block")
            completionBlockRan.raise()
        }
        return (dependent, completionBlockRan, log)
    }
}

/// What `FinishOrderTests` needs of an upstream operation.
protocol ObservedFinish: Sendable {
    /// Called by each observer after it looked at the flags.
    func observerLooked()
}

/// `AsyncAwaitPost.AsyncOperation` whose `finish()` is held between its two writes: the
/// second one, `isExecuting = false`, waits — `isFinished` being already true — until
/// `observers` observers have looked (at most 5 s), takes a look of its own, then runs the
/// post's setter.
private final class HeldBetweenTheWrites: AsyncAwaitPost.AsyncOperation, ObservedFinish, @unchecked Sendable {
    // @unchecked Sendable: a semaphore and a Locked, both thread-safe.
    private let looked = DispatchSemaphore(value: 0)
    private let observers: Int
    private let gaveUp = Locked(false)
    private let lookWhileHeld: @Sendable (HeldBetweenTheWrites) -> String
    private let seenWhileHeld = Locked<[String]>([])

    /// - Parameter lookWhileHeld: called on the finishing thread once the observers have
    ///   looked, before `isExecuting = false`; what it returns ends up in `whileHeld`.
    init(observers: Int, lookWhileHeld: @escaping @Sendable (HeldBetweenTheWrites) -> String) {
        self.observers = observers
        self.lookWhileHeld = lookWhileHeld
    }

    var whileHeld: [String] { seenWhileHeld.withLock { $0 } }

    let finishReturned = Flag()
    var gaveUpWaiting: Bool { gaveUp.withLock { $0 } }

    func observerLooked() { looked.signal() }

    override func main() {
        DispatchQueue.global().async {
            self.finish()
            self.finishReturned.raise()
        }
    }

    override var isExecuting: Bool {
        get { super.isExecuting }
        set {
            if !newValue && isFinished {
                // A blocking wait, on the thread that called finish(): not async code.
                let deadline = DispatchTime.now() + 5
                for _ in 0..<observers where looked.wait(timeout: deadline) == .timedOut {
                    gaveUp.withLock { $0 = true }
                }
                let seen = lookWhileHeld(self)
                seenWhileHeld.withLock { $0.append(seen) }
            }
            super.isExecuting = newValue
        }
    }
}
