import AsyncOperations
import Dispatch
import Foundation
import ResultOperations
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking  // URLError on Linux
#endif

// The post's own code — SwiftGenericsPost's AsyncResultOperation and UnfurlURLOperation, on
// its base operation — run against a stand-in for URLSession (LocalURLSession) whose cancelled
// tasks report the cancellation, as URLSession's do. (The post's base operation prints
// "Starting" from start().)

private let shortURL = URL(string: "https://short.example/ops")!
private let longURL = URL(string: "https://www.example.com/articles/asynchronous-operations")!
private let web = LocalWeb(redirects: [shortURL: longURL], pages: [longURL: "<title>Operations</title>"])

/// A web whose answers take a minute: in a test, only a cancellation ends a request.
private func silentWeb(onRequest: @escaping @Sendable (URL) -> Void) -> LocalWeb {
    var slow = web
    slow.latency = .seconds(60)
    slow.onRequest = onRequest
    return slow
}

private typealias PostUnfurl = SwiftGenericsPost.UnfurlURLOperation

@Suite("Chapter 6 — the post's UnfurlURLOperation on the post's AsyncResultOperation")
struct ArticleExampleTests {
    @Test("it unfurls: the result is the URL the redirects end at")
    func unfurls() async {
        let unfurl = PostUnfurl(shortURL: shortURL, session: LocalURLSession(web: web))
        #expect(await OperationQueue().runs(unfurl))
        #expect(outcome(unfurl.result) == "success(\(longURL))")
    }

    @Test(
        """
        cancelAllOperations() with one unfurl running and one waiting: the queue drains, but the \
        running one's failure(canceled) is overwritten once its data task reports the cancellation
        """)
    func cancelAllOverwritesTheCancellation() async {
        let requestSent = Flag()
        let delegateQueue = HeldQueue("the session's delegate queue")
        let session = LocalURLSession(web: silentWeb { _ in requestSent.raise() }, delegateQueue: delegateQueue.queue)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let running = PostUnfurl(shortURL: shortURL, session: session)
        let pending = PostUnfurl(shortURL: shortURL, session: session)
        queue.add([running, pending])
        #expect(await requestSent.wait())

        // cancel() is the post's override: it cancels the data task, then cancel(with: .canceled).
        queue.cancelAllOperations()
        #expect(outcome(running.result) == "failure(canceled)")
        #expect(outcome(pending.result) == "failure(canceled)")

        // The cancelled task reports on the delegate queue, held until now: its completion
        // handler finishes with .underlying(URLError.cancelled), replacing .canceled.
        delegateQueue.release()
        #expect(await queueLearnsFinished(running), "the running one finishes: its task answered the cancellation")
        #expect(await drained(queue), "and the serial queue goes on: the pending one finishes in start()")
        #expect(running.isCancelled && outcome(running.result) == "failure(underlying(URLError.cancelled))")
        #expect(pending.isFinished && outcome(pending.result) == "failure(canceled)")
    }

    @Test(
        """
        a redirect without a target, or a page that does not exist: URLSession answers with a \
        response for that URL, so the post's unfurl succeeds with it, never missingRedirectURL
        """)
    func noTargetIsASuccess() async {
        let broken = URL(string: "https://short.example/broken")!
        let gone = URL(string: "https://short.example/gone")!
        var brokenWeb = web
        brokenWeb.redirects[broken] = .some(nil)  // a redirect without a Location
        let session = LocalURLSession(web: brokenWeb)
        let redirectWithoutTarget = PostUnfurl(shortURL: broken, session: session)
        let leadsNowhere = PostUnfurl(shortURL: gone, session: session)
        #expect(await OperationQueue().runs([redirectWithoutTarget, leadsNowhere]))
        #expect(outcome(redirectWithoutTarget.result) == "success(\(broken))")
        #expect(outcome(leadsNowhere.result) == "success(\(gone))")
    }

    @Test(
        """
        a redirect loop: LocalURLSession answers, as URLSession does, with no response and \
        URLError.httpTooManyRedirects, so the post's unfurl fails with it
        """)
    func redirectLoopIsAnError() async {
        let loop = URL(string: "https://short.example/loop")!
        var loopingWeb = web
        loopingWeb.redirects[loop] = loop
        let unfurl = PostUnfurl(shortURL: loop, session: LocalURLSession(web: loopingWeb))
        #expect(await OperationQueue().runs(unfurl))
        guard case .failure(.underlying(let error as URLError))? = unfurl.result else {
            Issue.record("not a URLError: \(outcome(unfurl.result))")
            return
        }
        #expect(error.code == .httpTooManyRedirects)
    }

    @Test("cancel() after the unfurl finished replaces its success with failure(canceled)")
    func cancelAfterFinishOverwrites() async {
        let unfurl = PostUnfurl(shortURL: shortURL, session: LocalURLSession(web: web))
        #expect(await OperationQueue().runs(unfurl))
        #expect(outcome(unfurl.result) == "success(\(longURL))")
        unfurl.cancel()  // for example, a screen that cancels its operations when it goes away
        #expect(unfurl.isFinished && outcome(unfurl.result) == "failure(canceled)")
    }

    @Test("a subclass that calls finish(with:) twice: the second result replaces the first")
    func secondFinishOverwrites() async {
        let operation = FinishesTwice()
        #expect(await OperationQueue().runs(operation))
        #expect(operation.result.flatMap { try? $0.get() } == "second")
    }

    #if os(macOS) || os(Linux)
        @Test("the post's UnfurlURLOperation survives cancelAllOperations(): it overrides cancel()", .exitTest)
        func articleExampleSurvivesCancelAll() async {
            await #expect(processExitsWith: .success) {
                let queue = OperationQueue()
                queue.isSuspended = true
                let unfurl = PostUnfurl(shortURL: shortURL, session: LocalURLSession(web: web))
                queue.addOperation(unfurl)
                queue.cancelAllOperations()
                exit(unfurl.isCancelled ? 0 : 1)
            }
        }

        @Test("a subclass that does not override cancel() crashes when its queue is cancelled", .exitTest)
        func subclassWithoutOverrideCrashes() async {
            await #expect(processExitsWith: .failure) {
                let queue = OperationQueue()
                queue.isSuspended = true
                queue.addOperation(FinishesTwice())  // does not override cancel()
                queue.cancelAllOperations()  // calls cancel(): fatalError
                exit(0)
            }
        }
    #endif
}

/// A subclass of the post's base, made here, that finishes twice, and does not override
/// `cancel()`. (The post's own `UnfurlURLOperation` calls `finish(with:)` once per answer.)
private final class FinishesTwice: SwiftGenericsPost.AsyncResultOperation<String, UnfurlError>, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func main() {
        finish(with: .success("first"))
        finish(with: .success("second"))
    }
}

/// The post's result, printed the short way: `failure(canceled)`.
private func outcome(_ result: Result<URL, PostUnfurl.Error>?) -> String {
    switch result {
    case nil: "nil"
    case .success(let url)?: "success(\(url))"
    case .failure(.canceled)?: "failure(canceled)"
    case .failure(.missingRedirectURL)?: "failure(missingRedirectURL)"
    case .failure(.underlying(let error as URLError))? where error.code == .cancelled:
        "failure(underlying(URLError.cancelled))"
    case .failure(.underlying(let error))?: "failure(underlying(\(error)))"
    }
}
