import Dispatch
import Foundation
import SyncOnly
import TestSupport
import Testing

/// The articles' own examples of chapter 1, run as the articles write them: their delays,
/// their queues, their call sites (a log stands in for `print`).
@Suite("Chapter 1 — the articles' examples")
struct Chapter1ArticleTests {
    /// "Asynchronous Operations with Async/Await" prints "Finish Execution" and waits 3 s; the
    /// same example in "Asynchronous operations for writing concurrent solutions in Swift"
    /// prints "Operations finished" and waits 1 s.
    @Test(
        "the first example: waitUntilFinished returns, and the caller prints its line, before Executing",
        arguments: [("Finish Execution", 3), ("Operations finished", 1)])
    func firstExample(callerLine: String, delaySeconds: Int) async {
        let log = EventLog()
        let callerPrinted = DispatchSemaphore(value: 0)
        let executed = Flag()
        // The article's operation: its delay on a global queue. Its work waits (bounded, on
        // that global queue's thread) until the caller has printed, so the order is caused:
        // a queue that waited for the work would wait for ever, and the test fails at the bound.
        let operation = SyncOnlyOperation(after: .seconds(delaySeconds)) {
            _ = callerPrinted.wait(timeout: .now() + 60)
            log.record("Executing")
            executed.raise()
        }

        let returned = await blockingCall(within: Double(delaySeconds) + 10) {
            let queue = OperationQueue()
            queue.addOperations([operation], waitUntilFinished: true)
            log.record(callerLine)
            callerPrinted.signal()
        }

        #expect(returned)
        #expect(await executed.wait())
        #expect(log.events == [callerLine, "Executing"])
    }

    #if os(macOS) || os(Linux)
        /// "OperationQueue + Asynchronous Code": two closures on a serial queue, each scheduling
        /// its asynchronous line on `DispatchQueue.main` 1 s and 1.5 s later. In a child process
        /// whose main thread first stays blocked past both deadlines, then is free.
        @Test("the second example as written: its main-queue hops wait while the main thread is blocked", .exitTest)
        func secondExampleHops() async {
            // The child answers with its exit status (observing its output would hold up the
            // other tests for as long as it runs).
            await #expect(processExitsWith: .success) {
                // A queue that waited for the main-queue work would block the main thread for
                // ever, in waitUntilAllOperationsAreFinished(): the watchdog ends the child.
                startWatchdog(seconds: 30)
                let log = EventLog()
                let bothAsyncLines = Flag()
                let whileBlocked = await MainActor.run {
                    Chapter1ArticleTests.addTheArticlesClosures(log: log, done: bothAsyncLines)
                    // Blocks the main thread well past both deadlines: the hops cannot run.
                    Thread.sleep(forTimeInterval: 2)
                    return log.events
                }
                guard whileBlocked == ["First sync operation complete", "Second sync operation complete"] else {
                    exit(3)  // an asynchronous line ran while the main thread was blocked
                }
                // The main actor is free again: its thread services the main queue.
                guard await bothAsyncLines.wait() else { exit(4) }
                guard log.events.count == 4 else { exit(5) }
            }
        }

        /// The article's call site, `print` replaced by `log`. Returns once the serial queue
        /// has run both closures (a synchronous function: it blocks, as the article's
        /// program would).
        static func addTheArticlesClosures(log: EventLog, done: Flag) {
            let asyncLines = Counter(target: 2)
            let report: @Sendable (String) -> Void = { line in
                log.record(line)
                if line.hasSuffix("async operation complete") { asyncLines.increment() }
            }
            Task { if await asyncLines.waitForTarget() { done.raise() } }

            let operationQueue = OperationQueue()
            operationQueue.maxConcurrentOperationCount = 1

            operationQueue.addOperation {
                DispatchQueue.main.asyncAfter(deadline: .now() + 1) {
                    report("First async operation complete")
                }
                report("First sync operation complete")
            }

            operationQueue.addOperation {
                DispatchQueue.main.asyncAfter(deadline: .now() + 1.5) {
                    report("Second async operation complete")
                }
                report("Second sync operation complete")
            }
            operationQueue.waitUntilAllOperationsAreFinished()
        }
    #endif
}
