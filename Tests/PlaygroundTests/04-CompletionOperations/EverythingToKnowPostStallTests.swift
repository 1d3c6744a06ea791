import AsyncOperations
import CompletionOperations
import Dispatch
import Foundation
import TestSupport
import Testing

// Bug 1 with the article's hops: the second hop writes `.finished` on the main thread while
// `start()` writes `.executing` on the queue's thread. Between the two writes `isFinished` is
// true; the queue learns that the operation finished only if it reads `isFinished` then.
// On Linux it reads it inside `didChangeValue(forKey: "isFinished")` (verified here), so what
// decides is whether the `.finished` write's own announcement reads before or after the
// `.executing` write. The benchmark counts how often each happens with the real hops
// (Chapters/MEASUREMENTS.md); these tests make each order certain, with a callback thread
// standing in for the second hop and its read of `isFinished` held until the test says so.
//
// Darwin: the queue observes `isFinished` with key-value observing, and when it reads the
// getter is not documented; whether the same interleaving stalls a queue there was not tested
// (not yet run on a Mac). Hence Linux only.
#if os(Linux)
    @Suite("Chapter 4 — bug 1: whether the queue learns depends on when it reads isFinished")
    struct EverythingToKnowPostStallTests {
        @Test("read after .executing was written: the queue never learns, and a serial queue stalls behind it")
        func readAfterExecutingStalls() async {
            let operation = ReadHoldingOperation(releasingTheReadAfterExecuting: true)
            let next = BlockOperation {}
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            queue.add([operation, next])

            #expect(await operation.heldReadReturned.wait(), "the held read of isFinished never returned")
            #expect(operation.isExecuting && !operation.isFinished, "bug 1: finished, then executing")
            #expect(operation.trueReads.value == 0, "isFinished was never read while it was true")
            #expect(await queueDoesNotLearnFinished(next, within: 1), "the serial queue went on")
            #expect(queue.operationCount == 2)

            // Announcing .finished again lets the queue go on (and frees the operations).
            operation.state = .finished
            #expect(await drained(queue))
        }

        @Test("control — read between the two writes: the queue learns, and the serial queue goes on")
        func readBetweenTheWritesLearns() async {
            let operation = ReadHoldingOperation(releasingTheReadAfterExecuting: false)
            let next = BlockOperation {}
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            queue.add([operation, next])

            #expect(await operation.heldReadReturned.wait(), "the read of isFinished never returned")
            #expect(await queueLearnsFinished(next), "the serial queue stalled")
            // start() writes .executing once main() returns, on the queue's thread, whatever
            // the queue does meanwhile with what it learned.
            #expect(await operation.startReturned.wait(), "start() never returned")
            #expect(operation.isExecuting && !operation.isFinished, "bug 1 all the same: finished, then executing")
            #expect(operation.trueReads.value >= 1, "the queue learned from a read while isFinished was true")
        }
    }

    private enum ReadHoldingOperationPhase { case beforeFinishedWrite, finishedWriteReading, startReturned, done }

    /// The popular base, finished from a callback thread — the article's second hop — while
    /// `start()` still runs. Its `main()` returns only once the `.finished` write has begun to
    /// announce itself (its first read of `isFinished`), so the two writes come in the order bug
    /// 1 needs. That read is either answered at once, between the two writes, or held until
    /// the queue has done with `start()`: after `.executing` was written.
    private final class ReadHoldingOperation: EverythingToKnowPost.AsyncOperation, @unchecked Sendable {
        // @unchecked Sendable: its own state is semaphores, flags, a counter and a Locked. The
        // two writes of `state` (the base's, unlocked: bug 3) are ordered by `finishedWriteRead`,
        // and the held read by `queueDoneWithStart`.
        let heldReadReturned = Flag()
        let startReturned = Flag()
        let trueReads = Counter()
        private let holdsTheRead: Bool
        private let finishedWriteRead = DispatchSemaphore(value: 0)
        private let queueDoneWithStart = DispatchSemaphore(value: 0)
        private let phase = Locked(ReadHoldingOperationPhase.beforeFinishedWrite)
        /// The thread that stands in for the article's second hop.
        private let callbackThread = Locked<ObjectIdentifier?>(nil)

        init(releasingTheReadAfterExecuting holdsTheRead: Bool) {
            self.holdsTheRead = holdsTheRead
        }

        override func main() {
            let callback = Thread { self.state = .finished }
            callbackThread.withLock { $0 = ObjectIdentifier(callback) }
            callback.start()
            _ = finishedWriteRead.wait(timeout: .now() + 60)  // bounded: the callback thread signals
            // start() now writes .executing.
        }

        override func start() {
            super.start()
            _ = phase.withLock { $0.advance(from: .finishedWriteReading, to: .startReturned) }
            startReturned.raise()
        }

        override var isFinished: Bool {
            let onCallbackThread = callbackThread.withLock { $0 == ObjectIdentifier(Thread.current) }
            if onCallbackThread, phase.withLock({ $0.advance(from: .beforeFinishedWrite, to: .finishedWriteReading) }) {
                return answerTheFinishedWritesRead()
            }
            let finished = countedRead()
            // The queue's own check after start() returned, on its thread: start() is done with.
            if !onCallbackThread, phase.withLock({ $0.advance(from: .startReturned, to: .done) }) {
                queueDoneWithStart.signal()
            }
            return finished
        }

        /// The first read of `isFinished` that the `.finished` write's announcement makes.
        private func answerTheFinishedWritesRead() -> Bool {
            defer { heldReadReturned.raise() }
            if holdsTheRead {
                finishedWriteRead.signal()  // main() returns, start() writes .executing ...
                _ = queueDoneWithStart.wait(timeout: .now() + 60)  // ... returns, and the queue checks
                return countedRead()
            }
            let finished = countedRead()  // between the two writes
            finishedWriteRead.signal()
            return finished
        }

        private func countedRead() -> Bool {
            let finished = super.isFinished
            if finished { trueReads.increment() }
            return finished
        }
    }

    extension ReadHoldingOperationPhase {
        /// Moves from `from` to `to` and returns true, or returns false if the phase is another.
        mutating func advance(from: Self, to: Self) -> Bool {
            guard self == from else { return false }
            self = to
            return true
        }
    }
#endif
