// Chapter 3 — cancellation. Read along: Chapters/03-Cancellation/README.md
import AsyncOperations
import Cancellation
import ChapterSupport
import Dispatch
import Foundation

// The pictures: this run is recorded when it runs with --timeline FOLDER (Scripts/draw-timelines).
Timeline.recordIfAsked()

// `.named`: an OperationQueue with a Foundation `name`, which labels the chapter's pictures, and
// which reports what its callers do. `Reporting.`: the chapter's operations, which also report
// what happens to them (small subclasses: ChapterSupport, Reporting.swift). Names label them.
heading("Cancelled before it starts")
let queue = OperationQueue.named("queue")
let greeting = Reporting.CancellableDelayedPrintOperation(after: Pacing.delay(0.5), report: say)
greeting.name = "greeting"
greeting.cancel()
queue.addOperations([greeting], waitUntilFinished: true)
say("Finished without executing: isFinished = \(greeting.isFinished), isExecuting = \(greeting.isExecuting)")

heading("Cancelling a running upload")
let upload = Reporting.UploadOperation(chunkCount: 5, pace: Pacing.delay(0.3)) { progress, operation in
    say("Sent chunk \(progress.sent) of \(progress.total)")
    if progress.sent == 2 {
        say("The user cancels the upload")
        operation.cancel()
    }
}
upload.name = "upload"
queue.addOperations([upload], waitUntilFinished: true)
say("Upload \(upload.outcome.map(String.init(describing:)) ?? "never started")")
// Not queue.operationCount here: Foundation wakes waitUntilFinished() *before* it removes the
// operation from its queue, so the count could still be 1. Waiting for the queue is caused.
queue.waitUntilAllOperationsAreFinished()
say("The queue drained: isFinished = \(upload.isFinished), isCancelled = \(upload.isCancelled)")

heading("cancelAllOperations() on a serial queue")
let serialQueue = OperationQueue.named("serial")
serialQueue.maxConcurrentOperationCount = 1
let uploads = (1...3).map { number in
    Reporting.UploadOperation(chunkCount: 3, pace: Pacing.delay(0.3)) { progress, _ in
        say("Upload \(number): sent chunk \(progress.sent) of \(progress.total)")
        if number == 1 && progress.sent == 1 {
            say("The user cancels everything")
            serialQueue.cancelAllOperations()
        }
    }
}
for (number, upload) in zip(1..., uploads) { upload.name = "upload \(number)" }
// For the pictures: cancelAllOperations() cancels the three in an order Foundation does not
// promise. (The serial queue then finishes uploads 2 and 3, which never started, one after the
// other: that order is the queue's.)
Timeline.drawnTogether(uploads, only: [.cancelled])
serialQueue.addOperations(uploads, waitUntilFinished: true)
for (number, upload) in zip(1..., uploads) {
    let outcome = upload.outcome.map(String.init(describing:)) ?? "never started"
    say("Upload \(number): \(outcome), isFinished = \(upload.isFinished)")
}
