import CoordinatingPost
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc  // SIGSEGV (not Foundation: `Operation` stays the article's here)
#elseif canImport(Darwin)
    import Darwin
#endif

// The article's own example and coordinators ("Coordinating async operations"), as the article
// writes them (module CoordinatingPost). This file imports the article's module and not
// Foundation, so `Operation` is the article's protocol here, as in the article.
// Every completion below is called by the test itself, on the test's thread, in the order it
// chooses; nothing is timed.

@Suite("Chapter 8 — the article's final code: collection operations, and the coordinators rewritten on them")
struct Chapter8FinalCodeTests {
    /// The article's final coordinators (not `Sendable`, so not test arguments).
    // The article's example, an empty list, and the orders of errors and starts: run on the
    // final coordinators too, by Chapter8ArticleTests (its tests' `final: true` cases).

    @Test("an operation that calls back twice: the concurrent one calls back early, the serial one twice")
    func callbackTwice() {
        let concurrentCalls = Calls()
        let waiting = HeldPostOperation(id: 1, fails: true)
        ConcurrentOperationCoordinatorAsItemOperation().perform([CallsBackTwice(id: 0), waiting]) {
            concurrentCalls.record($0)
        }
        waiting.complete()
        #expect(concurrentCalls.errorIDs == [[0, 0]], "called back early; operation 1's error is never reported")

        let serialCalls = Calls()
        let next = HeldPostOperation(id: 1)
        SerialOperationCoordinatorAsItemOperation().perform([CallsBackTwice(id: 0), next]) {
            serialCalls.record($0)
        }
        #expect(next.performed == 2, "the next operation was started twice")
        next.complete()
        #expect(serialCalls.errorIDs == [[0], [0]], "two call backs")
    }

    @Test("batches of 3: ten items make four batches, concurrently or serially; errors per batch")
    func batches() {
        let concurrent = RecordingBatches(batchSize: 3)
        let concurrentCalls = Calls()
        concurrent.perform(onCollection: Array(1...10)) { concurrentCalls.record($0) }
        let serial = SerialRecordingBatches(batchSize: 3)
        let serialCalls = Calls()
        serial.perform(onCollection: Array(1...10)) { serialCalls.record($0) }
        for batches in [concurrent.batches, serial.batches] {
            #expect(batches == [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10]])
        }
        #expect(concurrentCalls.errorIDs == [[10]] && serialCalls.errorIDs == [[10]])
    }

    #if os(macOS) || os(Linux)
        @Test(
            "the serial rewrite nests one call per operation too: 100,000 that complete at once overflow the stack",
            .disabled(if: Sanitizer.thread, StackOverflow.whyNotUnderThreadSanitizer), .exitTest)
        func serialRewriteOverflowsTheStack() async {
            let result = await #expect(processExitsWith: StackOverflow.ending, observing: [\.standardErrorContent]) {
                let operations = (0..<100_000).map { _ in MyOperation() }
                SerialOperationCoordinatorAsItemOperation().perform(operations) { _ in }
            }
            StackOverflow.checkReport(of: result)
        }
    #endif
}

/// A concurrent batch operation of the article's kind that records its batches and fails the
/// last one, which holds a single item, with that item as the error's id.
private final class RecordingBatches: ConcurrentCollectionBatchOperation {
    typealias OperationItemType = Int
    let batchSize: Int
    private(set) var batches: [[Int]] = []

    init(batchSize: Int) { self.batchSize = batchSize }

    func perform(onBatch batch: [Int], completion: @escaping BatchCompletion) {
        batches.append(batch)
        completion(batch.count == 1 ? TestFailure(id: batch[0]) : nil)
    }
}

/// The same, serially.
private final class SerialRecordingBatches: SerialCollectionBatchOperation {
    typealias OperationItemType = Int
    let batchSize: Int
    private(set) var batches: [[Int]] = []

    init(batchSize: Int) { self.batchSize = batchSize }

    func perform(onBatch batch: [Int], completion: @escaping BatchCompletion) {
        batches.append(batch)
        completion(batch.count == 1 ? TestFailure(id: batch[0]) : nil)
    }
}
