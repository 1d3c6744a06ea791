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
let queue = OperationQueue.named("queue")  // a plain OperationQueue; its name labels the pictures

heading("The post's call site: fetchTitle.addDependency(unfurl)")
// The post's own operations, on a local stand-in for URLSession (PostCallSite.swift). Its
// UnfurlURLOperation is a plain AsyncResultOperation, which provides no output: fetchTitle
// starts without an input.
runThePostsCallSite(shortURL: shortURL, session: LocalURLSession(web: web))

heading("Unfurl, then fetch the title", besidePrevious: true)  // the pictures: the post's, then this
let unfurl = UnfurlURLOperation(shortURL: shortURL, web: web).named("unfurl")
// URL out, URL in: checked by the compiler.
let fetchTitle = unfurl.then(FetchTitleOperation(web: web).named("fetchTitle"))
queue.addOperations([unfurl, fetchTitle], waitUntilFinished: true)
say("Unfurled to \(describe(unfurl.result))")
say("Result: \(describe(fetchTitle.result))")

heading("When the upstream operation fails or is cancelled")
let unknown = UnfurlURLOperation(shortURL: URL(string: "https://short.example/gone")!, web: web).named("unknown")
let titleOfUnknown = unknown.then(FetchTitleOperation(web: web).named("titleOfUnknown"))
let cancelled = UnfurlURLOperation(shortURL: shortURL, web: web).named("cancelled")
let titleOfCancelled = cancelled.then(FetchTitleOperation(web: web).named("titleOfCancelled"))
// The pictures: the queue runs the two chains at the same time, in no caused order.
drawnTogether(unknown, cancelled)
drawnTogether(titleOfUnknown, titleOfCancelled)
cancelled.cancel()
queue.addOperations([unknown, titleOfUnknown, cancelled, titleOfCancelled], waitUntilFinished: true)
say("Upstream failed: \(describe(titleOfUnknown.result))")
say("Upstream cancelled: \(describe(titleOfCancelled.result))")

heading("No upstream at all")
let orphan = FetchTitleOperation(web: web).named("orphan")
queue.addOperations([orphan], waitUntilFinished: true)
say("No input: \(describe(orphan.result))")
