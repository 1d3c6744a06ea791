import AsyncOperations
// Chapter 6 — generic Result operations. Read along: Chapters/06-ResultOperation/README.md
import ChapterSupport
import Dispatch
import Foundation
import ResultOperations

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
let queue = OperationQueue()

heading("Unfurling a short URL")
say("Unfurling \(shortURL)")
let unfurl = UnfurlURLOperation(shortURL: shortURL, web: web)
queue.addOperations([unfurl], waitUntilFinished: true)
say("Result: \(describe(unfurl.result))")

heading("Every path ends with a result")
let redirectWithoutTarget = UnfurlURLOperation(shortURL: brokenURL, web: web)
let unknownPage = UnfurlURLOperation(shortURL: URL(string: "https://short.example/gone")!, web: web)
queue.addOperations([redirectWithoutTarget, unknownPage], waitUntilFinished: true)
say("A redirect without a target: \(describe(redirectWithoutTarget.result))")
say("A URL that leads nowhere: \(describe(unknownPage.result))")

let cancelledEarly = UnfurlURLOperation(shortURL: shortURL, web: web)
cancelledEarly.cancel()
queue.addOperations([cancelledEarly], waitUntilFinished: true)
say("Cancelled before it starts: \(describe(cancelledEarly.result))")

// The queue cancels while the first unfurl waits for its answer (the web has just received
// its request) and the second one still waits in the serial queue.
let serialQueue = OperationQueue()
serialQueue.maxConcurrentOperationCount = 1
var slowWeb = web
slowWeb.latency = DispatchTimeInterval.seconds(60)  // never answers in time: only the cancellation can end it
slowWeb.onRequest = { (_: URL) in serialQueue.cancelAllOperations() }
let running = UnfurlURLOperation(shortURL: shortURL, web: slowWeb)
let pending = UnfurlURLOperation(shortURL: shortURL, web: slowWeb)
serialQueue.addOperations([running, pending], waitUntilFinished: true)
say("cancelAllOperations(), while it waits for the answer: \(describe(running.result))")
say("cancelAllOperations(), while it waits in the queue: \(describe(pending.result))")

heading("A result is set once")
let twice = TwiceFinishingOperation()
queue.addOperation(twice)
waitOrExit(twice.bothCallsReturned, for: "the two finish(with:) calls")
say("finish(with: first) returned \(twice.accepted[0]), finish(with: second) returned \(twice.accepted[1])")
say("Result: \(describe(twice.result))")

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
