import AsyncOperations
// Chapter 6 — generic Result operations. Read along: Chapters/06-ResultOperations/README.md
import ChapterSupport
import Dispatch
import Foundation
import ResultOperations

#if canImport(FoundationNetworking)
    import FoundationNetworking  // URLError on Linux
#endif

let shortURL = URL(string: "https://short.example/ops")!
let brokenURL = URL(string: "https://short.example/broken")!
let articleURL = URL(string: "https://www.example.com/articles/asynchronous-operations")!
// Where each short URL redirects; nil is a redirect without a target.
let redirects: [URL: URL?] = [shortURL: articleURL, brokenURL: nil]
// The local stand-in for the web: the redirect table and the pages that exist. No network.
let web = LocalWeb(
    redirects: redirects,
    pages: [articleURL: "<html><head><title>Asynchronous operations</title></head></html>"],
    latency: Pacing.delay(0.3)
)
let queue = OperationQueue.named("queue")  // a plain OperationQueue; its name labels the pictures

heading("Unfurling a short URL")
say("Unfurling \(shortURL)")
let unfurl = UnfurlURLOperation(shortURL: shortURL, web: web).named("unfurl")
queue.addOperations([unfurl], waitUntilFinished: true)
say("Result: \(describe(unfurl.result))")

heading("Every path ends with a result")
let redirectWithoutTarget = UnfurlURLOperation(shortURL: brokenURL, web: web).named("no target")
let unknownPage = UnfurlURLOperation(shortURL: URL(string: "https://short.example/gone")!, web: web).named("gone")
drawnTogether(redirectWithoutTarget, unknownPage)  // the pictures: the queue runs both at once
queue.addOperations([redirectWithoutTarget, unknownPage], waitUntilFinished: true)
say("A redirect without a target: \(describe(redirectWithoutTarget.result))")
say("A URL that leads nowhere: \(describe(unknownPage.result))")

let cancelledEarly = UnfurlURLOperation(shortURL: shortURL, web: web).named("cancelled early")
cancelledEarly.cancel()
queue.addOperations([cancelledEarly], waitUntilFinished: true)
say("Cancelled before it starts: \(describe(cancelledEarly.result))")

// The queue cancels while the first unfurl waits for its answer (the web has just received
// its request) and the second one still waits in the serial queue.
let serialQueue = OperationQueue.named("serial")
serialQueue.maxConcurrentOperationCount = 1
var slowWeb = web
slowWeb.latency = DispatchTimeInterval.seconds(60)  // never answers in time: only the cancellation can end it
slowWeb.onRequest = { (_: URL) in serialQueue.cancelAllOperations() }
let running = UnfurlURLOperation(shortURL: shortURL, web: slowWeb).named("running")
let pending = UnfurlURLOperation(shortURL: shortURL, web: slowWeb).named("pending")
drawnTogether([running, pending], only: [.cancelled])  // cancelAllOperations() promises no order
serialQueue.addOperations([running, pending], waitUntilFinished: true)
say("cancelAllOperations(), while it waits for the answer: \(describe(running.result))")
say("cancelAllOperations(), while it waits in the queue: \(describe(pending.result))")

heading("A result is set once")
let twice = TwiceFinishingOperation().named("twice")
queue.addOperation(twice)
waitOrExit(twice.bothCallsReturned, for: "the two finish(with:) calls")
say("finish(with: first) returned \(twice.accepted[0]), finish(with: second) returned \(twice.accepted[1])")
say("Result: \(describe(twice.result))")

heading("The post's UnfurlURLOperation, cancelled by its queue")
// The post's own operation and base (SwiftGenericsPost; its base's start() prints "Starting"),
// on a stand-in for URLSession whose cancelled tasks report the cancellation, as URLSession's
// do. The queue cancels while the first unfurl's request is in flight and the second waits;
// the held delegate queue makes the task report only once cancelAllOperations() has returned.
let delegateQueue = DispatchQueue(label: "the session's delegate queue")
delegateQueue.suspend()
let postQueue = OperationQueue.named("post's queue")
postQueue.maxConcurrentOperationCount = 1
var postWeb = slowWeb
postWeb.onRequest = { (_: URL) in
    postQueue.cancelAllOperations()
    say("Right after cancelAllOperations(): \(describePost(postRunning.result))")
    delegateQueue.resume()
}
let postSession = LocalURLSession(web: postWeb, delegateQueue: delegateQueue)
let postRunning = SwiftGenericsPost.UnfurlURLOperation(shortURL: shortURL, session: postSession)
let postPending = SwiftGenericsPost.UnfurlURLOperation(shortURL: shortURL, session: postSession)
postQueue.addOperations([postRunning, postPending], waitUntilFinished: true)  // the queue drains
say("Once its data task reported the cancellation: \(describePost(postRunning.result))")
say("The one that waited in the queue: \(describePost(postPending.result))")

/// The post's result, with a cancelled `URLError` printed the same way on every platform.
func describePost(_ result: Result<URL, SwiftGenericsPost.UnfurlURLOperation.Error>?) -> String {
    if case .failure(.underlying(let error as URLError))? = result, error.code == .cancelled {
        return "failure(underlying(URLError.cancelled))"
    }
    return describe(result)
}

/// Finishes with "first", then tries again with "second", and keeps what each call returned.
final class TwiceFinishingOperation: AsyncResultOperation<String, UnfurlError>, @unchecked Sendable {
    // @unchecked Sendable: `calls` is a Locked, the semaphore is thread-safe.
    private let calls = Locked<[Bool]>([])
    let bothCallsReturned = DispatchSemaphore(value: 0)

    var accepted: [Bool] { calls.withLock { $0 } }

    override func main() {
        DispatchQueue.global().async {
            for value in ["first", "second"] {
                let accepted = self.finish(with: .success(value))
                self.calls.withLock { $0.append(accepted) }
            }
            self.bothCallsReturned.signal()
        }
    }
}
