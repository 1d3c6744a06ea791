import CompletionOperations
import Foundation
import TestSupport
import Testing

/// The article's own call site — two completion operations on a queue with
/// `maxConcurrentOperationCount = 1`, each printing a synchronous line and then an asynchronous
/// one — run against the popular version. (The article's `DispatchQueue.main` hops are left out,
/// as the chapter's README explains; here the asynchronous parts run on held dispatch queues.)
@Suite("Chapter 4 — the article's example, on the popular version")
struct Chapter4ArticleTests {
    @Test("when each callback comes after start() has returned, the popular version prints the four lines in order")
    func articleExampleHappyPath() async {
        let log = EventLog()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let firstAsync = HeldQueue()
        let secondAsync = HeldQueue()
        let first = StartReportingOperation { complete in
            log.record("First sync operation complete")
            firstAsync.queue.async {
                log.record("First async operation complete")
                complete()
            }
        }
        let second = StartReportingOperation { complete in
            log.record("Second sync operation complete")
            secondAsync.queue.async {
                log.record("Second async operation complete")
                complete()
            }
        }
        queue.add([first, second])

        // Bug 1 sets .executing only after main() returns: release each asynchronous part only
        // once start() has returned, the order in which the article's example works.
        #expect(await first.startReturned.wait())
        #expect(await !queueLearnsFinished(first, within: 0.1), "the serial queue waits for the first callback")
        #expect(log.events == ["First sync operation complete"])
        firstAsync.release()
        #expect(await second.startReturned.wait())
        secondAsync.release()
        #expect(await drained(queue))
        #expect(
            log.events == [
                "First sync operation complete", "First async operation complete",
                "Second sync operation complete", "Second async operation complete",
            ])
        // What goes wrong is off this path: a callback called before start() returns (bug 1),
        // cancel() while pending (bug 2), state written from two threads (bug 3).
    }
}

/// The popular operation, telling when its `start()` has returned.
private final class StartReportingOperation: PopularCompletionOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a thread-safe flag (to a base that is not safe: bug 3).
    let startReturned = Flag()

    override func start() {
        super.start()
        startReturned.raise()
    }
}
