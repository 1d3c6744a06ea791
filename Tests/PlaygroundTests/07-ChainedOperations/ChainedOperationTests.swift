import AsyncOperations
import ChainedOperations
import Foundation
import ResultOperations
import TestSupport
import Testing

@Suite("Chapter 7 — chained operations")
struct ChainedOperationTests {
    @Test("unfurl, then fetch the title: the title of the final page")
    func unfurlThenFetchTitle() async {
        let unfurl = UnfurlURLOperation(shortURL: ChainedWeb.shortURL, web: ChainedWeb.web)
        let fetchTitle = unfurl.then(FetchTitleOperation(web: ChainedWeb.web))
        #expect(await OperationQueue().runs([fetchTitle, unfurl]))  // the dependency orders them, not the list
        #expect(fetchTitle.input == ChainedWeb.articleURL)
        #expect(fetchTitle.result?.value == "The article")
    }

    @Test("the article's own call site, fetchTitle.addDependency(unfurl) without then: the same title")
    func articleAddDependency() async {
        let unfurl = UnfurlURLOperation(shortURL: ChainedWeb.shortURL, web: ChainedWeb.web)
        let fetchTitle = FetchTitleOperation(web: ChainedWeb.web)
        fetchTitle.addDependency(unfurl)
        #expect(await OperationQueue().runs([unfurl, fetchTitle]))
        #expect(fetchTitle.result?.value == "The article")
    }

    @Test("an input given at creation is used as it is, whatever the dependencies")
    func givenInput() async {
        let upstream = Value("from upstream")
        let downstream = Uppercasing(input: "given")
        downstream.addDependency(upstream)
        #expect(await OperationQueue().runs([upstream, downstream]))
        #expect(downstream.result?.value == "GIVEN")
    }

    @Test("without then, the one dependency that provides the input type is the upstream; others are ignored")
    func singleProvider() async {
        let upstream = Value("hello")
        let unrelated = BlockOperation {}
        let downstream = Uppercasing()
        downstream.addDependency(unrelated)
        downstream.addDependency(upstream)
        #expect(await OperationQueue().runs([upstream, unrelated, downstream]))
        #expect(upstream.watch.problem == nil)
        #expect(downstream.result?.value == "HELLO")
    }

    @Test("an upstream that failed: the downstream ends with .input(.upstreamFailed), its work never runs")
    func upstreamFailed() async {
        let upstream = Value<String>(failing: .missingInput)
        let downstream = upstream.then(Uppercasing())
        #expect(await OperationQueue().runs([upstream, downstream]))
        #expect(upstream.watch.problem == nil)
        #expect(downstream.result?.failureDescription == "input(upstreamFailed(missingInput))")
        #expect(!downstream.workRan)
    }

    @Test("an upstream that was cancelled: .input(.upstreamCancelled), and the work never runs")
    func upstreamCancelled() async {
        let upstream = Value("never delivered")
        let downstream = upstream.then(Uppercasing())
        upstream.cancel()
        #expect(await OperationQueue().runs([upstream, downstream]))
        #expect(downstream.result?.failureDescription == "input(upstreamCancelled)")
        #expect(!downstream.workRan)
    }

    @Test("a finished chain is released: no reference cycle between chained operations")
    func chainIsReleased() async {
        let released = Counter(target: 2)
        do {
            let upstream = Value("hello", releasing: released)
            let downstream = upstream.then(Uppercasing(releasing: released))
            #expect(await OperationQueue().runs([upstream, downstream]))
            #expect(upstream.watch.problem == nil)
            #expect(downstream.result?.value == "HELLO")
        }
        // Both deinits run once the queue has let go of the finished operations; a reference
        // cycle would keep them alive for ever.
        #expect(await released.waitForTarget(seconds: 2), "a chained operation is still alive: a reference cycle?")
    }
}
