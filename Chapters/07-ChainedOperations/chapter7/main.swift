// Chapter 7 — chaining. Read along: Chapters/07-ChainedOperations/README.md
import ChainedOperations
import ChapterSupport
import Foundation
import ResultOperations

let shortURL = URL(string: "https://short.example/ops")!
let articleURL = URL(string: "https://www.example.com/articles/asynchronous-operations")!
// The same local stand-in for the web as chapter 6, now serving the page too. No network.
let web = LocalWeb(
    redirects: [shortURL: articleURL],
    pages: [articleURL: "<html><head><title>Asynchronous operations, step by step</title></head></html>"],
    latency: Pacing.delay(0.3)
)
let queue = OperationQueue()

heading("The post's call site: fetchTitle.addDependency(unfurl)")
// The post's own operations (SwiftGenericsPost; their base's start() prints "Starting"), on a
// local stand-in for URLSession. Its UnfurlURLOperation is a plain AsyncResultOperation, which
// provides no output: fetchTitle starts without an input.
let session = LocalURLSession(web: web)
let postUnfurl = SwiftGenericsPost.UnfurlURLOperation(shortURL: shortURL, session: session)
let postFetchTitle = SwiftGenericsPost.FetchTitleChainedOperation(session: session)
postFetchTitle.addDependency(postUnfurl)
queue.addOperations([postUnfurl, postFetchTitle], waitUntilFinished: true)
say("Result: \(describe(postFetchTitle.result))")

heading("Unfurl, then fetch the title")
let unfurl = UnfurlURLOperation(shortURL: shortURL, web: web)
let fetchTitle = unfurl.then(FetchTitleOperation(web: web))  // URL out, URL in: checked by the compiler
queue.addOperations([unfurl, fetchTitle], waitUntilFinished: true)
say("Unfurled to \(describe(unfurl.result))")
say("Result: \(describe(fetchTitle.result))")

heading("When the upstream operation fails or is cancelled")
let unknown = UnfurlURLOperation(shortURL: URL(string: "https://short.example/gone")!, web: web)
let titleOfUnknown = unknown.then(FetchTitleOperation(web: web))
let cancelled = UnfurlURLOperation(shortURL: shortURL, web: web)
let titleOfCancelled = cancelled.then(FetchTitleOperation(web: web))
cancelled.cancel()
queue.addOperations([unknown, titleOfUnknown, cancelled, titleOfCancelled], waitUntilFinished: true)
say("Upstream failed: \(describe(titleOfUnknown.result))")
say("Upstream cancelled: \(describe(titleOfCancelled.result))")

heading("No upstream at all")
let orphan = FetchTitleOperation(web: web)
queue.addOperations([orphan], waitUntilFinished: true)
say("No input: \(describe(orphan.result))")
