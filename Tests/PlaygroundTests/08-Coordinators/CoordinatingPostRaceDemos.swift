import AsyncOperations
import CoordinatingPost
import Foundation
import TestSupport
import Testing

/// The race demos of chapter 8's article (`CoordinatingPost`), skipped in the normal suite (see
/// `raceDemo`). One at a time: run side by side, ThreadSanitizer reported the first demo's race
/// and none for the second (3 runs of 3), which races when run alone.
@Suite(
    "Chapter 8 — race demos: the article's shared error arrays (RACE_DEMOS=1, under ThreadSanitizer)", .raceDemo,
    .serialized)
struct CoordinatingPostRaceDemos {
    /// The article's `ConcurrentOperationCoordinator` appends every error to one shared array
    /// from the operations' completions. Here the completions arrive on four threads begun
    /// together, as network completions can. ThreadSanitizer reports the race; without it, errors
    /// can get lost (and then the completion is never called), the completion can be called
    /// twice, or the process crashes (CoordinatingPostCrashTests). Nothing is asserted about the
    /// outcome: the demo's evidence is ThreadSanitizer's report, which Scripts/race-demos looks
    /// for. The fixed coordinator runs the same scenario in
    /// Chapter8CoordinatorTests.concurrentCompletionsCollectSafely.
    @Test("the article's ConcurrentOperationCoordinator appends errors from concurrent completions")
    func concurrentOperationCoordinator() async {
        for _ in 1...Self.rounds { await completeAllAtOnce(on: ConcurrentOperationCoordinator()) }
    }

    /// The article's final `ConcurrentOperationCoordinator`, rewritten on its
    /// `ConcurrentCollectionItemOperation`, whose extension has the same shared array.
    @Test("the article's final ConcurrentOperationCoordinator (ConcurrentCollectionItemOperation), the same")
    func concurrentOperationCoordinatorAsItemOperation() async {
        for _ in 1...Self.rounds { await completeAllAtOnce(on: ConcurrentOperationCoordinatorAsItemOperation()) }
    }

    /// Rounds of each demo: on a loaded machine the four threads often meet in Foundation's own
    /// locks, which order their appends, and one round then showed ThreadSanitizer no race (a CI
    /// run beside other work). A race seen in any round is reported.
    static let rounds = 4

    /// Performs 1,000 failing operations with `coordinator`, and completes them from four threads at once.
    private func completeAllAtOnce(on coordinator: some OperationCoordinator) async {
        let count = 1000
        let operations = (0..<count).map { CarriedOperation(id: $0) }
        let calls = Locked<[Int]>([])  // the number of errors of each call back
        coordinator.perform(operations) { errors in
            calls.withLock { $0.append(errors.count) }
        }
        let carriers = operations.map { $0.carrier! }
        // Blocks until the four threads are done: on a thread of its own, off the cooperative pool.
        _ = await blockingCall(within: 60) {
            SimultaneousThreads.run(4) { thread in
                for index in stride(from: thread, to: count, by: 4) { carriers[index].complete() }
            }
        }
        let made = calls.withLock { $0 }
        print("\(type(of: coordinator)) called back \(made.count) times, with \(made) of \(count) errors")
    }
}

/// Carries the article's completion, which is not `@Sendable`, to other threads — what code
/// written before Swift concurrency does without the compiler seeing it (a network
/// session calling back on its own queue).
final class CompletionCarrier: @unchecked Sendable {
    // @unchecked Sendable: NOT safe, on purpose. It lets four threads call the article's
    // completion at once, which is the scenario this demo shows.
    let complete: () -> Void

    init(_ complete: @escaping () -> Void) { self.complete = complete }
}

/// An operation of the article's kind that fails, and hands its completion to the demo (and to
/// `CoordinatingPostCrashTests`). This
/// file imports Foundation, so the article's protocol needs its module's name: the clash the
/// article warns about.
final class CarriedOperation: CoordinatingPost.Operation, @unchecked Sendable {
    // @unchecked Sendable: `carrier` is written in perform(), before any thread starts, and
    // only read after.
    let id: Int
    var carrier: CompletionCarrier?

    init(id: Int) { self.id = id }

    func perform(completion: @escaping OperationCompletion) {
        let id = id
        carrier = CompletionCarrier { completion(TestFailure(id: id)) }
    }
}
