import AsyncOperations
import CompletionOperations
import Foundation
import TestSupport
import Testing

/// The article's call site — two completion operations on a serial queue — with the first one
/// cancelled while its work runs. The article's `cancel()` sets `.finished` at once, so the
/// queue starts the second operation while the first one's work has not ended; the package's
/// `CompletionOperation` stays executing until its work calls back.
///
/// Each operation's asynchronous part (its "async" line, then its completion) runs on the main
/// queue, as the article's does, but only once the test releases it: every order below is
/// caused by those releases, never by a delay. The test process's main thread serves the main
/// queue: on Linux, Swift Testing's asynchronous entry point leaves it to Dispatch (verified
/// here); a Mac's test runner is expected to serve it too (inferred, not run on a Mac). If it
/// did not, the tests would fail at a bounded wait.
@Suite("Chapter 4 — cancelling a running operation: does the serial queue wait for its work?")
struct EverythingToKnowPostRunningCancelTests {
    /// The article's `cancel()` writes its unlocked `state` while the queue reads it (bug 3).
    @Test(
        "the article's CompletionOperation, cancelled while its work runs: the next one starts before that work ends",
        .racesByDesign(shownBy: "EverythingToKnowPostRaceDemos"))
    func articleStartsTheNextEarly() async {
        let log = EventLog()
        let (first, second) = (HeldStep("first", log), HeldStep("second", log))
        let firstOperation = StartWatched { completion in first.run(completion) }
        let secondOperation = StartWatched { completion in second.run(completion) }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.add([firstOperation, secondOperation])

        #expect(await first.syncDone.wait(), "the first operation runs")
        #expect(await firstOperation.startReturned.wait(), "its start() has set .executing")
        firstOperation.cancel()  // the article's cancel(): super.cancel(), then state = .finished
        #expect(await second.syncDone.wait(), "the serial queue started the second operation...")
        #expect(!first.asyncDone.isRaised, "...while the first one's work had not ended")

        first.release()
        #expect(await first.asyncDone.wait())
        #expect(await secondOperation.startReturned.wait())
        second.release()
        #expect(await second.asyncDone.wait())
        #expect(log.events == ["first sync", "second sync", "first async", "second async"])
        #expect(await drained(queue))
    }

    @Test("the fix: CompletionOperation, cancelled while its work runs, keeps the serial queue waiting for it")
    func fixedKeepsTheOrder() async {
        let log = EventLog()
        let (first, second) = (HeldStep("first", log), HeldStep("second", log))
        let firstOperation = CompletionOperation { complete in first.run(complete) }
        let secondOperation = CompletionOperation { complete in second.run(complete) }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.add([firstOperation, secondOperation])

        #expect(await first.syncDone.wait(), "the first operation runs")
        firstOperation.cancel()
        #expect(firstOperation.isCancelled && firstOperation.isExecuting, "cancelled; executing until its work ends")
        #expect(
            await second.syncDone.staysLowered(for: 0.3), "the serial queue does not start the second one meanwhile")

        first.release()
        #expect(await first.asyncDone.wait())
        #expect(await second.syncDone.wait(), "the first one's callback finished it; now the second one starts")
        second.release()
        #expect(await second.asyncDone.wait())
        #expect(log.events == ["first sync", "first async", "second sync", "second async"])
        #expect(await drained(queue))
    }
}

/// The article's `CompletionOperation` as written (both main-queue hops), telling when its
/// `start()` has returned — so that the test cancels it only once it is `.executing`.
private final class StartWatched: EverythingToKnowPost.CompletionOperation, @unchecked Sendable {
    // @unchecked Sendable: adds a Flag, which is thread-safe, to the article's class.
    let startReturned = Flag()

    override func start() {
        super.start()
        startReturned.raise()
    }
}

/// One operation's work at the article's call site: its "sync" line at once, and its "async"
/// line and completion on the main queue — where the article calls them — once the test
/// releases them.
private final class HeldStep: @unchecked Sendable {
    // @unchecked Sendable: `completion` is stored and taken under `lock`, and called only on the
    // main queue, as the article's block calls it.
    private let name: String
    private let log: EventLog
    private let lock = NSLock()
    private var completion: EverythingToKnowPost.VoidClosure?
    let syncDone = Flag()
    let asyncDone = Flag()

    init(_ name: String, _ log: EventLog) {
        self.name = name
        self.log = log
    }

    /// The operation's block: keeps the completion for later, and prints its "sync" line.
    func run(_ completion: EverythingToKnowPost.VoidClosure?) {
        lock.withLock { self.completion = completion }
        log.record("\(name) sync")
        syncDone.raise()
    }

    /// The held part, on the main queue: the "async" line, then the completion.
    func release() {
        DispatchQueue.main.async {
            self.log.record("\(self.name) async")
            let completion = self.lock.withLock { self.completion }
            completion?()
            self.asyncDone.raise()
        }
    }
}
