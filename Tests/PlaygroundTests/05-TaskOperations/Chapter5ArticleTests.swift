import Foundation
import ManualState
import TaskOperations
import TestSupport
import Testing

/// The article "Asynchronous Operations with Async/Await": its operation
/// (`AsyncAwaitPost.AsyncOperationWithTask`) and its call site, as written.
@Suite("Chapter 5 — the article's operation and call site")
struct Chapter5ArticleTests {
    #if os(macOS) || os(Linux)
        /// Chapters/05-TaskOperations/article-swift6 and article-swift5 hold the article's call
        /// site, the same lines, compiled in Swift 6 and in Swift 5 language mode. Both flush
        /// their output as they go: a child that printed and then hung shows its lines.
        @Test("the article's call site hangs as Swift 6 top-level code, and runs as Swift 5 top-level code")
        func callSiteInBothLanguageModes() async throws {
            let swift6 = try ChildProcess("chapter5-article-swift6")
            let swift5 = try ChildProcess("chapter5-article-swift5")
            defer { swift6.terminate() }

            await expectRunsToItsEnd(swift5)
            // The same lines in Swift 6 mode, given 2 s more than the Swift 5 ones took.
            await expectHangs(swift6)
        }

        /// The Swift 5 program, with the same lines in a `@MainActor` function (as in a view
        /// controller), and in the same function with the closure written `{ @Sendable in`.
        @Test("in Swift 5 mode too, the call site hangs in main-actor code; with a @Sendable closure it runs")
        func swift5MainActorCallSite() async throws {
            let mainActor = try ChildProcess("chapter5-article-swift5", arguments: ["viewDidLoad"])
            let sendable = try ChildProcess("chapter5-article-swift5", arguments: ["viewDidLoad-sendable"])
            defer { mainActor.terminate() }

            await expectRunsToItsEnd(sendable)
            await expectHangs(mainActor)
        }

        /// The article's three lines, and a clean exit. The closure sleeps 2 s; a generous
        /// bound for a loaded machine.
        private func expectRunsToItsEnd(_ child: ChildProcess) async {
            #expect(await child.exits(within: 30), "\(child.name) \(child.arguments) did not finish")
            #expect(child.status == 0)
            #expect(child.printedLines == ["Executing", "Finished", "Hello World!"])
        }

        /// Still running 2 s later, without a line printed: its closure never ran.
        private func expectHangs(_ child: ChildProcess) async {
            #expect(await child.keepsRunning(for: 2), "\(child.name) \(child.arguments) should still be waiting")
            #expect(child.printedLines.isEmpty, "printed: \(child.printedLines)")
        }
    #endif

    @Test("cancelled between start() and main(): main() returns without finish(), and the operation stays executing")
    func earlyReturnStaysExecuting() async {
        let closureRan = Flag()
        let operation = CancelledBeforeMain { closureRan.raise() }
        OperationQueue().addOperation(operation)
        #expect(await operation.mainReturned.wait())
        #expect(await queueDoesNotLearnFinished(operation, within: 0.5), "the queue should never learn it finished")
        #expect(operation.isExecuting && !operation.isFinished)
        #expect(!closureRan.isRaised)
        // It stays executing for good: the queue, and this operation, are never freed.
    }
}

/// The article's operation, cancelled where a real `cancel()` lands by chance: after
/// `start()` looked at `isCancelled`, before `main()` does.
private final class CancelledBeforeMain: AsyncAwaitPost.AsyncOperationWithTask<Void>, @unchecked Sendable {
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
