// Chapter 7 — chaining. Read along: Chapters/07-ChainedOperations/README.md
import ChainedOperations
import ChapterSupport
import Foundation
import ResultOperations

// The pictures: this run is recorded when it runs with --timeline FOLDER (Scripts/draw-timelines).
Timeline.recordIfAsked()

let shortURL = URL(string: "https://short.example/ops")!
let articleURL = URL(string: "https://www.example.com/articles/asynchronous-operations")!
// The same local stand-in for the web as chapter 6, now serving the page too. No network.
let web = LocalWeb(
    redirects: [shortURL: articleURL],
    pages: [articleURL: "<html><head><title>Asynchronous operations, step by step</title></head></html>"],
    latency: Pacing.delay(0.3)
)
// `.named`: an OperationQueue that reports what its callers do; names label the pictures.
// `Reporting.`: the chapter's operations, which also report what happens to them (Reporting.swift).
let queue = OperationQueue.named("queue")

heading("The post's call site: fetchTitle.addDependency(unfurl)")
// The post's own operations, on a local stand-in for URLSession (PostCallSite.swift). Its
// UnfurlURLOperation is a plain AsyncResultOperation, which provides no output: fetchTitle
// starts without an input.
runThePostsCallSite(shortURL: shortURL, session: LocalURLSession(web: web))

heading("Unfurl, then fetch the title", besidePrevious: true)  // the pictures: the post's, then this
let unfurl = Reporting.UnfurlURLOperation(shortURL: shortURL, web: web).named("unfurl")
// URL out, URL in: checked by the compiler.
let fetchTitle = unfurl.then(Reporting.FetchTitleOperation(web: web).named("fetchTitle"))
queue.addOperations([unfurl, fetchTitle], waitUntilFinished: true)
say("Unfurled to \(describe(unfurl.result))")
say("Result: \(describe(fetchTitle.result))")

heading("When the upstream operation fails or is cancelled")
let goneURL = URL(string: "https://short.example/gone")!
let unknown = Reporting.UnfurlURLOperation(shortURL: goneURL, web: web).named("unknown")
let titleOfUnknown = unknown.then(Reporting.FetchTitleOperation(web: web).named("titleOfUnknown"))
let cancelled = Reporting.UnfurlURLOperation(shortURL: shortURL, web: web).named("cancelled")
let titleOfCancelled = cancelled.then(Reporting.FetchTitleOperation(web: web).named("titleOfCancelled"))
// The pictures: the queue runs the two chains at the same time, in no caused order.
Timeline.drawnTogether(unknown, cancelled)
Timeline.drawnTogether(titleOfUnknown, titleOfCancelled)
cancelled.cancel()
queue.addOperations([unknown, titleOfUnknown, cancelled, titleOfCancelled], waitUntilFinished: true)
say("Upstream failed: \(describe(titleOfUnknown.result))")
say("Upstream cancelled: \(describe(titleOfCancelled.result))")

heading("No upstream at all")
let orphan = Reporting.FetchTitleOperation(web: web).named("orphan")
queue.addOperations([orphan], waitUntilFinished: true)
say("No input: \(describe(orphan.result))")
