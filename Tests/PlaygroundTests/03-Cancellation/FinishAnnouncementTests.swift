import AsyncOperations
import Foundation
import TestSupport
import Testing

/// The finished base claims a finish under its lock before it announces anything, so only the
/// `finish()` that finished the operation posts "isFinished"; a second call is silent. (Chapter
/// 4's `CompletionOperationTests.callbackTwice` sees the same through `CompletionOperation`;
/// `AnnouncementObservation` says how each platform sees an announcement.)
@Suite("Chapter 3 — the base announces a finish once")
struct FinishAnnouncementTests {
    @Test("a second finish() posts no notification: only the call that finished the operation announces it")
    func secondFinishAnnouncesNothing() async {
        let evidence = Counter()
        let secondCallEvidence = Locked<Int?>(nil)
        let completions = Counter()
        let operation = FinishingTwice(countingReadsIn: evidence, secondCall: secondCallEvidence)
        operation.completionBlock = completions.increment
        let observation = AnnouncementObservation(of: operation, countingIn: evidence)
        #expect(await OperationQueue().runs(operation))
        observation.end()
        #expect(secondCallEvidence.withLock { $0 } == 0, "the second finish() announced isFinished again")
        #expect(operation.isFinished && completions.value == 1)
    }
}

/// An `AsyncOperation` whose `main()` calls `finish()` twice in a row, and that counts, on Linux,
/// how often `isFinished` is read.
private final class FinishingTwice: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only thread-safe counters to a thread-safe superclass.
    private let reads: Counter
    private let secondCall: Locked<Int?>

    init(countingReadsIn reads: Counter, secondCall: Locked<Int?>) {
        self.reads = reads
        self.secondCall = secondCall
    }

    override var isFinished: Bool {
        #if os(Linux)
            reads.increment()
        #endif
        return super.isFinished
    }

    override func main() {
        completingTwice(countingIn: reads, secondCall: secondCall)({ self.finish() })
    }
}
