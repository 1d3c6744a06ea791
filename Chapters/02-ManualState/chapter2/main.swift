// Chapter 2 — managing the state by hand. Read along: Chapters/02-ManualState/README.md
import ChapterSupport
import Dispatch
import Foundation
import ManualState

// The pictures: this run is recorded when it runs with --timeline FOLDER (Scripts/draw-timelines).
Timeline.recordIfAsked()

heading("The post's AsyncOperation: a concurrent queue, barrier writes")
// `.named`: an OperationQueue with a Foundation `name`, which labels the chapter's pictures, and
// which reports what its callers do (a small subclass in ChapterSupport).
let queue = OperationQueue.named("queue")
// The post's example as its call site runs it: start() prints "Starting", main() "Executing".
// `Reporting.`: the post's operation, also reporting to the chapter's pictures (Reporting.swift).
let articleOperation = Reporting.AsyncOperationWithExample(delay: Pacing.delay(0.5))
queue.addOperations([articleOperation], waitUntilFinished: true)  // returns only after finish()
say("Operations finished")

heading("The delayed print, now on ManualStateOperation")
// `Reporting.`: a DelayedPrintOperation that also reports to the chapter's pictures (Reporting.swift).
let operation = Reporting.DelayedPrintOperation(after: Pacing.delay(0.5), report: say)
queue.addOperations([operation], waitUntilFinished: true)  // returns only after finish()
say("Operations finished")

heading("A dependency waits for finish()")
let download = Reporting.DelayedPrintOperation(after: Pacing.delay(0.5)) { say("Download: \($0)") }
download.name = "download"
let dependentRan = DispatchSemaphore(value: 0)
let process = BlockOperation.named("process") {
    say("Process: starts after the download finished (isFinished = \(download.isFinished))")
    dependentRan.signal()
}
process.addDependency(download)
queue.addOperations([process, download], waitUntilFinished: false)
waitOrExit(dependentRan, for: "the dependent operation")
