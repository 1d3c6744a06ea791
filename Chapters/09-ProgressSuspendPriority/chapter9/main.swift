// Chapter 9 — Progress, suspending and priorities.
// Read along: Chapters/09-ProgressSuspendPriority/README.md
import AsyncOperations
import ChapterSupport
import Foundation
import ProgressSuspendPriority
import TaskOperations

// The pictures: this run is recorded when it runs with --timeline FOLDER (Scripts/draw-timelines).
Timeline.recordIfAsked()

// This file never awaits: its top-level code is synchronous, so it may block the main thread in
// its bounded waits. (Top-level code that awaits runs on the main actor; blocking it there would
// starve any Task that needs it.)

/// Pacing for a human watching; none when CHAPTER_PACING=0. It never decides an order.
func pace(_ seconds: Double) {
    Thread.sleep(forTimeInterval: seconds * Pacing.scale)
}

/// Lets one step through, or gives up the whole chapter if the work never acknowledges it.
func advance(_ turnstile: Turnstile, _ what: String) {
    if !turnstile.advance() {
        say("Gave up waiting for \(what).")
        exit(1)
    }
}

// 1. The queue's own progress counts operations that run the base start() only.
// Only sections 4 and 6 have pictures: `.named` gives an operation or a queue a Foundation name,
// which labels them (and makes a BlockOperation and a queue that report to them). In 1 and 7 two operations run at
// once; in 2, 3 and 5 an operation finishes its last step while the main thread prints: in
// each, the order between some events is not caused, so no picture could be the same each run.
heading("OperationQueue.progress", drawn: false)
let counted = OperationQueue()
counted.progress.totalUnitCount = 2  // set before they run: the queue counts only what runs after
let block = BlockOperation {}
let quiet = QuietAsyncOperation()
counted.addOperations([block, quiet], waitUntilFinished: true)
say("a BlockOperation and an AsyncOperation finished: both \(block.isFinished && quiet.isFinished)")
say("the queue's progress: \(describe(counted.progress))")

// 2. Real progress: each operation reports its own; a parent adds them up.
heading("ProgressReporting: a parent sees its children advance", drawn: false)
let turnstile = Turnstile()
let photos = SteppedOperation("photos", steps: 2, turnstile: turnstile, report: say).named("photos")
let videos = SteppedOperation("videos", steps: 2, turnstile: turnstile, report: say).named("videos")
let overall = Progress(totalUnitCount: 2)
overall.addChild(photos.progress, withPendingUnitCount: 1)
overall.addChild(videos.progress, withPendingUnitCount: 1)
let serial = OperationQueue.named("serial")
serial.maxConcurrentOperationCount = 1  // one at a time: each step below is one of them
serial.addOperations([photos, videos], waitUntilFinished: false)
for step in 1...4 {
    advance(turnstile, "step \(step)")
    say(
        "overall: \(Int((overall.fractionCompleted * 100).rounded()))% (photos \(describe(photos.progress)), videos \(describe(videos.progress)))"
    )
    pace(0.15)
}
serial.waitUntilAllOperationsAreFinished()

// 3. Cancelling the parent progress cancels the operations.
heading("Progress.cancel() cancels the work", drawn: false)
let cancelTurnstile = Turnstile()
let upload = SteppedOperation("upload", steps: 3, turnstile: cancelTurnstile, report: say).named("upload")
let uploads = Progress(totalUnitCount: 1)
uploads.addChild(upload.progress, withPendingUnitCount: 1)
let uploadQueue = OperationQueue.named("uploads")
uploadQueue.addOperation(upload)
advance(cancelTurnstile, "the first upload step")
say("upload at \(describe(upload.progress))")
SteppedOperation.withProgressLock { uploads.cancel() }  // Linux: a Progress takes no lock of its own
// The cancellation handler may run on another thread, a moment later: wait for it.
if !upload.waitUntilCancelled() { exit(1) }
say("after uploads.cancel(): the operation is cancelled: \(upload.isCancelled)")
advance(cancelTurnstile, "the cancelled upload")
uploadQueue.waitUntilAllOperationsAreFinished()
say("finished: \(upload.isFinished), still at \(describe(upload.progress))")

// 4. Suspending a queue stops new starts; it does not pause what runs.
heading("isSuspended: no new starts; a running operation goes on")
let suspendTurnstile = Turnstile()
// `Reporting.`: a SteppedOperation that also reports what happens to it (Reporting.swift).
let running = Reporting.SteppedOperation("running", steps: 2, turnstile: suspendTurnstile, report: say)
    .named("running")
let suspendable = OperationQueue.named("suspendable")
let nextStarted = DispatchSemaphore(value: 0)
let next = BlockOperation.named("next") {
    nextStarted.signal()
    say("next: started, the queue suspended: \(suspendable.isSuspended)")  // what it finds
}
suspendable.maxConcurrentOperationCount = 1
suspendable.addOperations([running, next], waitUntilFinished: false)
advance(suspendTurnstile, "running's first step")
suspendable.isSuspended = true
say("queue suspended")
advance(suspendTurnstile, "running's second step")
running.waitUntilFinished()
say("running went on while suspended: \(describe(running.progress)), finished: \(running.isFinished)")
// The one line that rests on a bound, and says so: unsuspended, the queue would start `next` as
// soon as `running` finished. The 0.3 s are waited with CHAPTER_PACING=0 too.
say("next started within 0.3 s: \(nextStarted.wait(timeout: .now() + 0.3) == .success)")
pace(0.15)
say("resuming the queue")  // before: `next` may print as soon as the queue resumes
suspendable.isSuspended = false
suspendable.waitUntilAllOperationsAreFinished()

// 5. Pausing at a safe point: the operation's own doing, through its progress.
heading("Progress.pause(): the operation stops at its next safe point", drawn: false)
let pauseTurnstile = Turnstile()
let export = SteppedOperation("export", steps: 2, turnstile: pauseTurnstile, report: say).named("export")
let exportQueue = OperationQueue.named("exports")
exportQueue.addOperation(export)
advance(pauseTurnstile, "the first export step")
export.progress.pause()
advance(pauseTurnstile, "export to notice the pause")
say("export while paused: \(describe(export.progress))")
pace(0.15)
export.progress.resume()
if !pauseTurnstile.waitForAcknowledgement() { exit(1) }
say("export after resume: \(describe(export.progress))")
exportQueue.waitUntilAllOperationsAreFinished()

// 6. queuePriority orders only the operations ready at the same time.
heading("queuePriority: among operations ready together")
let byPriority = OperationQueue.named("by priority")
byPriority.maxConcurrentOperationCount = 1
byPriority.isSuspended = true  // all three are added, and ready, before any can start
for (name, priority) in [("low", Operation.QueuePriority.low), ("normal", .normal), ("high", .high)] {
    let operation = BlockOperation.named(name) { say("\(name) priority ran") }
    operation.queuePriority = priority
    byPriority.addOperation(operation)
}
byPriority.isSuspended = false
byPriority.waitUntilAllOperationsAreFinished()

let first = BlockOperation.named("first") { say("low priority, but its dependent waits for it: first") }
first.queuePriority = .veryLow
let second = BlockOperation.named("second") { say("very high priority, dependent: second") }
second.queuePriority = .veryHigh
second.addDependency(first)
byPriority.addOperations([second, first], waitUntilFinished: true)

// 7. What reaches the work: a TaskOperation's task priority does.
heading("Priorities that reach the work", drawn: false)
let prioritized = TaskOperation(priority: .high) { Task.currentPriority }
let plain = TaskOperation { Task.currentPriority }
OperationQueue().addOperations([prioritized, plain], waitUntilFinished: true)
say("TaskOperation(priority: .high): the work sees \((try? prioritized.value).flatMap { "\($0)" } ?? "nothing")")
// The plain task takes the priority of the queue's thread, which differs by platform (Linux:
// .medium), so the line says only what holds on both: it is not the other task's .high.
let plainPriority = try? plain.value
let seen = plainPriority.map { $0 < .high ? "a lower priority than .high" : "\($0)" } ?? "nothing"
say("TaskOperation(): the work sees \(seen)")
// Neither the operation's quality of service nor its queue priority is a task priority. On
// Linux the task runs at .medium; on Darwin (inferred) it takes the quality of service of the
// thread the queue runs the operation on.
let urgent = TaskOperation { Task.currentPriority }
urgent.qualityOfService = .userInteractive
urgent.queuePriority = .veryHigh
OperationQueue().addOperations([urgent], waitUntilFinished: true)
let urgentPriority = (try? urgent.value).flatMap { "\($0)" } ?? "nothing"
say("TaskOperation() at .userInteractive, .veryHigh: the work sees \(urgentPriority)")
