import AsyncOperations
import CompletionOperations
import Foundation
import TestSupport
import Testing

@Suite("Chapter 4 — CompletionOperation")
struct CompletionOperationTests {
    @Test("a serial queue waits for each asynchronous part: first sync, first async, second sync, second async")
    func serialQueueWaitsForTheAsynchronousPart() async {
        let log = EventLog()
        let firstSyncDone = Flag()
        let firstAsyncWork = HeldQueue()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let first = CompletionOperation { complete in
            log.record("First sync operation complete")
            firstSyncDone.raise()
            firstAsyncWork.queue.async {
                log.record("First async operation complete")
                complete()
            }
        }
        let second = CompletionOperation { complete in
            log.record("Second sync operation complete")
            DispatchQueue.global().async {
                log.record("Second async operation complete")
                complete()
            }
        }
        queue.add([first, second])

        #expect(await firstSyncDone.wait())
        // The first operation's asynchronous part is held: the queue must not move on.
        #expect(await queueDoesNotLearnFinished(first, within: 0.1))
        #expect(log.events == ["First sync operation complete"] && !second.isExecuting && !second.isFinished)

        firstAsyncWork.release()
        #expect(await completes { await second.untilFinished() })
        #expect(
            log.events == [
                "First sync operation complete", "First async operation complete",
                "Second sync operation complete", "Second async operation complete",
            ])
    }

    @Test("a callback called before main() returns finishes the operation")
    func synchronousCallback() async {
        let operation = CompletionOperation { complete in complete() }
        let queue = OperationQueue()
        #expect(await queue.runs(operation))
        #expect(operation.isFinished && !operation.isExecuting)
    }

    @Test("calling the callback twice finishes once: the second call announces nothing")
    func callbackTwice() async {
        let evidence = Counter()
        let secondCallEvidence = Locked<Int?>(nil)
        let completions = Counter()
        let operation = ReadCountingCompletionOperation(
            countingReadsIn: evidence, completingTwice(countingIn: evidence, secondCall: secondCallEvidence))
        operation.completionBlock = completions.increment
        let observation = AnnouncementObservation(of: operation, countingIn: evidence)
        #expect(await OperationQueue().runs(operation))
        observation.end()
        #expect(secondCallEvidence.withLock { $0 } == 0, "the second call announced isFinished again")
        #expect(operation.isFinished && completions.value == 1)
    }

    @Test("cancelled while it waits in its queue: the closure never runs, and the operation finishes")
    func cancelledBeforeStart() async {
        let closureRan = Flag()
        let queue = OperationQueue()
        queue.isSuspended = true
        let operation = CompletionOperation { complete in
            closureRan.raise()
            complete()
        }
        queue.addOperation(operation)
        operation.cancel()
        #expect(!operation.isFinished, "cancel() must not finish an operation that waits in its queue")
        queue.isSuspended = false
        #expect(await queueLearnsFinished(operation))
        #expect(!closureRan.isRaised)
    }

    @Test("500 operations whose callbacks race cancel() from other threads all finish exactly once")
    func callbacksRacingCancel() async {
        // Bug 3 of the popular base is a data race; this is the same situation on the fixed
        // base, which ThreadSanitizer (CI's `swift test --sanitize=thread`) finds clean.
        let count = 500
        let completions = Counter(target: count)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        let operations = (0..<count).map { index in
            let operation = CompletionOperation { complete in
                // Threads of their own, so that the accesses really come from other threads.
                Thread { complete() }.start()
                if index % 3 == 0 { complete() }  // and sometimes at once, too
            }
            operation.completionBlock = completions.increment
            return operation
        }
        queue.add(operations)
        for (index, operation) in operations.enumerated() where index % 2 == 0 {
            Thread { operation.cancel() }.start()
        }
        #expect(await completions.waitForTarget())
        #expect(await drained(queue))
        #expect(operations.allSatisfy { $0.isFinished && !$0.isExecuting })
        #expect(completions.value == count)
    }
}

/// A CompletionOperation that counts, on Linux, how often `isFinished` is read.
private final class ReadCountingCompletionOperation: CompletionOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a thread-safe counter.
    private let reads: Counter

    init(countingReadsIn reads: Counter, _ work: @escaping Work) {
        self.reads = reads
        super.init(work)
    }

    override var isFinished: Bool {
        #if os(Linux)
            reads.increment()
        #endif
        return super.isFinished
    }
}
