import AsyncOperations
import ChainedOperations
import CompletionOperations
import Foundation
import ResultOperations
import TaskOperations
import TestSupport
import Testing

// The library's shared design: the cancellation hook, one result model, sealed finish().

private let shortURL = URL(string: "https://short.example/ops")!
private let articleURL = URL(string: "https://www.example.com/article")!
private let web = LocalWeb(
    redirects: [shortURL: articleURL], pages: [articleURL: "<html><title>The article</title></html>"])

/// A base operation that registers a counting cancellation handler in `main()`, and finishes
/// when the test says so.
private final class HookedOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only thread-safe counters and flags to a thread-safe superclass.
    let handlerRuns = Counter()
    let registered = Flag()
    override func main() {
        onCancel { self.handlerRuns.increment() }
        registered.raise()
    }
}

@Suite("The library's design: onCancel, one result model, sealed finish()", .timeLimit(.minutes(1)))
struct LibraryDesignTests {
    @Test("onCancel: runs once when cancelled, however often cancel() is called, and at once if already cancelled")
    func onCancelRunsOnce() async {
        let operation = HookedOperation()
        OperationQueue().addOperation(operation)
        #expect(await operation.registered.wait())
        #expect(operation.handlerRuns.value == 0)
        operation.cancel()
        operation.cancel()
        #expect(operation.handlerRuns.value == 1)
        let late = Counter()
        operation.onCancel { late.increment() }  // already cancelled: runs now
        #expect(late.value == 1)
        operation.finish()
        #expect(await queueLearnsFinished(operation))
    }

    @Test("onCancel: never runs for an operation that finished uncancelled, and its handlers are released")
    func onCancelReleasedAtFinish() async {
        let captured = WeakReference()
        let operation = HookedOperation()
        do {
            let marker = Flag()  // any Sendable object
            captured.object = marker
            operation.onCancel { withExtendedLifetime(marker) {} }
        }
        OperationQueue().addOperation(operation)
        #expect(await operation.registered.wait())
        operation.finish()
        #expect(await queueLearnsFinished(operation))
        operation.cancel()
        #expect(!operation.isCancelled && operation.handlerRuns.value == 0)
        #expect(await captured.isFreed(), "the finished operation still holds its handler")
    }

    @Test("CompletionOperation: the work registers how to stop, and a cancel stops it")
    func stoppableCompletionWork() async {
        let stopped = Flag()
        let started = Flag()
        let operation = CompletionOperation(stoppable: { complete, onCancel in
            onCancel {
                stopped.raise()
                complete()
            }
            started.raise()  // and never completes by itself
        })
        OperationQueue().addOperation(operation)
        #expect(await started.wait())
        operation.cancel()
        #expect(await queueLearnsFinished(operation, within: 30))
        #expect(stopped.isRaised)
    }

    @Test("value(of:) awaits an AsyncResultOperation too, and throws its typed failure")
    func valueOfResultOperation() async throws {
        let queue = OperationQueue()
        #expect(try await queue.value(of: UnfurlURLOperation(shortURL: shortURL, web: web)) == articleURL)
        let gone = UnfurlURLOperation(shortURL: URL(string: "https://short.example/gone")!, web: web)
        do {
            _ = try await queue.value(of: gone)
            Issue.record("a URL that leads nowhere must fail")
        } catch {
            #expect("\(error)" == "underlying(notFound(https://short.example/gone))")  // an UnfurlError
        }
    }

    @Test("a TaskOperation feeds a chained operation: TaskOperation { url }.then(FetchTitleOperation)")
    func taskOperationFeedsAChain() async throws {
        let findURL = TaskOperation { articleURL }
        let fetchTitle = findURL.then(FetchTitleOperation(web: web))
        let queue = OperationQueue()
        queue.addOperation(findURL)
        #expect(try await queue.value(of: fetchTitle) == "The article")
    }

    @Test("a cancelled TaskOperation upstream: the chained downstream ends with .input(.upstreamCancelled)")
    func cancelledTaskUpstream() async {
        let findURL = TaskOperation { articleURL }
        let fetchTitle = findURL.then(FetchTitleOperation(web: web))
        findURL.cancel()
        #expect(await OperationQueue().runs([findURL, fetchTitle]))
        #expect(fetchTitle.result?.failureDescription == "input(upstreamCancelled)")
    }

    @Test("a finished chain is freed: the downstream holds its upstream, nothing holds the downstream")
    func chainIsFreed() async {
        let upstreamReference = WeakReference()
        let downstreamReference = WeakReference()
        do {
            let unfurl = UnfurlURLOperation(shortURL: shortURL, web: web)
            let fetchTitle = unfurl.then(FetchTitleOperation(web: web))
            upstreamReference.object = unfurl
            downstreamReference.object = fetchTitle
            #expect(await OperationQueue().runs([unfurl, fetchTitle]))
            #expect(fetchTitle.dependencies.contains { $0 === unfurl }, "the upstream stays a dependency")
        }
        #expect(await downstreamReference.isFreed())
        #expect(await upstreamReference.isFreed())
    }
}
