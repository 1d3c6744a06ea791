import Foundation
import TaskOperations
import TestSupport
import Testing

/// The article "Asynchronous Operations with Async/Await": its operation
/// (`PopularTaskOperation`) and its call site, as written.
@Suite("Chapter 5 — the article's operation and call site")
struct Chapter5ArticleTests {
    #if os(macOS) || os(Linux)
        /// Chapters/05-TaskOperation/article-swift6 and article-swift5 hold the article's call
        /// site, the same lines, compiled in Swift 6 and in Swift 5 language mode.
        @Test("the article's call site hangs in Swift 6 mode, and prints its three lines in Swift 5 mode")
        func callSiteInBothLanguageModes() async throws {
            let swift6 = try ChildProcess("chapter5-article-swift6")
            let swift5 = try ChildProcess("chapter5-article-swift5")
            defer { swift6.terminate() }

            // The article's closure sleeps 2 s; generous bounds for a loaded machine.
            #expect(await swift5.exits(within: 30), "the Swift 5 call site did not finish")
            #expect(swift5.status == 0)
            #expect(swift5.printedLines == ["Executing", "Finished", "Hello World!"])
            // The same lines in Swift 6 mode, given 2 s more than the Swift 5 ones took.
            #expect(await !swift6.exits(within: 2), "the Swift 6 call site should still be waiting")
            #expect(swift6.printedLines.isEmpty, "printed: \(swift6.printedLines)")
        }
    #endif

    @Test("cancelled between start() and main(): main() returns without finish(), and the operation stays executing")
    func earlyReturnStaysExecuting() async {
        let closureRan = Flag()
        let operation = CancelledBeforeMain { closureRan.raise() }
        OperationQueue().addOperation(operation)
        #expect(await operation.mainReturned.wait())
        #expect(await !queueLearnsFinished(operation, within: 0.5), "the queue should never learn it finished")
        #expect(operation.isExecuting && !operation.isFinished)
        #expect(!closureRan.isRaised)
        // It stays executing for good: the queue, and this operation, are never freed.
    }
}

/// The article's operation, cancelled where a real `cancel()` lands by chance: after
/// `start()` looked at `isCancelled`, before `main()` does.
private final class CancelledBeforeMain: PopularTaskOperation<Void>, @unchecked Sendable {
    // @unchecked Sendable: adds only a thread-safe flag.
    let mainReturned = Flag()

    init(_ work: @escaping @Sendable () async -> Void) {
        super.init(task: work)
    }

    override func main() {
        cancel()
        super.main()
        mainReturned.raise()
    }
}
