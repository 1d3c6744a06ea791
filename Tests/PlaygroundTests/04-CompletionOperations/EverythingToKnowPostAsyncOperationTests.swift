import AsyncOperations
import CompletionOperations
import Foundation
import TestSupport
import Testing

@Suite("Chapter 4 — the popular state-enum base, bug by bug")
struct EverythingToKnowPostAsyncOperationTests {
    @Test("bug 1: main() before .executing — a callback called at once leaves the operation 'executing' for ever")
    func mainBeforeExecuting() async {
        let operation = EverythingToKnowPost.CompletionOperationWithoutMainQueue { completion in completion?() }
        #expect(await OperationQueue().runs(operation))
        // Its work is done and the queue has let it go, yet it goes on claiming to run:
        // finished → executing. Anything that asks it (isFinished, observers on Darwin) waits for ever.
        #expect(operation.isExecuting && !operation.isFinished)
    }

    @Test("the fix: CompletionOperation sets .executing before main(), so the same callback finishes it")
    func executingBeforeMain() async {
        let operation = CompletionOperation { complete in complete() }
        #expect(await OperationQueue().runs(operation))
        #expect(operation.isFinished && !operation.isExecuting)
    }

    @Test("calling the popular callback twice announces isFinished a second time")
    func popularCallbackTwice() async {
        let evidence = Counter()
        let secondCallEvidence = Locked<Int?>(nil)
        let operation = ReadCountingPostCompletionOperation(countingReadsIn: evidence) { completion in
            completion?()
            let before = evidence.value
            completion?()
            secondCallEvidence.withLock { $0 = evidence.value - before }
        }
        let observation = AnnouncementObservation(of: operation, countingIn: evidence)
        #expect(await OperationQueue().runs(operation))
        observation.end()
        // Linux's Foundation ignores the repeat; key-value observers on Darwin get it again.
        #expect((secondCallEvidence.withLock { $0 } ?? 0) > 0, "the popular second call should announce again")
    }
}

/// A CompletionOperationWithoutMainQueue that counts, on Linux, how often `isFinished` is read.
private final class ReadCountingPostCompletionOperation: EverythingToKnowPost.CompletionOperationWithoutMainQueue,
    @unchecked Sendable
{
    // @unchecked Sendable: adds only a thread-safe counter (to a base that is not safe: bug 3).
    private let reads: Counter

    init(
        countingReadsIn reads: Counter, completeBlock: EverythingToKnowPost.Closure<EverythingToKnowPost.VoidClosure?>?
    ) {
        self.reads = reads
        super.init(completeBlock: completeBlock)
    }

    override var isFinished: Bool {
        #if os(Linux)
            reads.increment()
        #endif
        return super.isFinished
    }
}
