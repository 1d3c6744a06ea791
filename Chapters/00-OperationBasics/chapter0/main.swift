// Chapter 0 — Operations in five minutes.
// Read along: Chapters/00-OperationBasics/README.md
import ChapterSupport
import Foundation
import OperationBasics

// The pictures: this run is recorded when it runs with --timeline FOLDER (Scripts/draw-timelines).
Timeline.recordIfAsked()

/// Pacing for a human watching; none when CHAPTER_PACING=0. It never decides an order.
func pace(_ seconds: Double) {
    Thread.sleep(forTimeInterval: seconds * Pacing.scale)
}

// 1. A BlockOperation on an OperationQueue.
// `.named`: Foundation's `name`, which also labels the operation's lane in the chapter's pictures.
// They are a BlockOperation and an OperationQueue that report what happens to them for the
// pictures (small subclasses in ChapterSupport), and change nothing else.
heading("A BlockOperation on an OperationQueue")
let queue = OperationQueue.named("queue")
let hello = BlockOperation.named("hello") { say("hello from an operation") }
queue.addOperation(hello)
queue.waitUntilAllOperationsAreFinished()  // fine here: nothing else needs this thread
say("the queue is empty again")

// 2. Dependencies on a queue of width 2: download first; resize and thumbnail after it (at
// the same time, in either order); upload only when both have finished.
heading("Dependencies on a queue of width 2")
let widthTwo = OperationQueue.named("width 2")
widthTwo.maxConcurrentOperationCount = 2
let gauge = WidthGauge()
let middleSteps = NameSet()
// Each middle step waits until the other has started too: they can meet only if the queue runs
// both at once. (With width 1 they would not meet, and each would give up after 5 s.)
let resizeStarted = DispatchSemaphore(value: 0)
let thumbnailStarted = DispatchSemaphore(value: 0)
let download = BlockOperation.named("download") { gauge.measure { say("download") } }
let resize = BlockOperation.named("resize") {
    gauge.measure {
        resizeStarted.signal()
        if thumbnailStarted.wait(timeout: .now() + 5) == .success { middleSteps.insert("resize") }
        pace(0.2)
    }
}
let thumbnail = BlockOperation.named("thumbnail") {
    gauge.measure {
        thumbnailStarted.signal()
        if resizeStarted.wait(timeout: .now() + 5) == .success { middleSteps.insert("thumbnail") }
        pace(0.2)
    }
}
let upload = BlockOperation.named("upload") {
    gauge.measure { say("upload, after \(middleSteps.sorted.joined(separator: " and ")) ran at the same time") }
}
resize.addDependency(download)
thumbnail.addDependency(download)
upload.addDependency(resize)
upload.addDependency(thumbnail)
Timeline.drawnTogether(resize, thumbnail)  // for the pictures: which of the two starts first is not caused
widthTwo.addOperations([upload, thumbnail, resize, download], waitUntilFinished: true)  // any order: the graph decides
say("most operations running at once: \(gauge.most)")

// 3. A serial queue: width 1, one operation at a time.
heading("A serial queue: maxConcurrentOperationCount = 1")
let serial = OperationQueue.named("serial")
serial.maxConcurrentOperationCount = 1
let serialGauge = WidthGauge()
// Step 1 waits for another step to start. Only a wider queue could start one while step 1
// runs, so on this queue the wait always runs out: 0.3 s, a bound (the same with
// CHAPTER_PACING=0), not pacing. On a wider queue, the gauge below would count more than 1.
let anotherStepStarted = DispatchSemaphore(value: 0)
let steps = (1...3).map { step in
    BlockOperation.named("step \(step)") {
        serialGauge.measure {
            say("step \(step)")
            if step == 1 {
                _ = anotherStepStarted.wait(timeout: .now() + 0.3)
            } else {
                anotherStepStarted.signal()
            }
            pace(0.1)
        }
    }
}
serial.addOperations(steps, waitUntilFinished: false)
serial.waitUntilAllOperationsAreFinished()
say("never more than \(serialGauge.most) at once")

// 4. States: ready, executing, finished; and the completion block, which runs after.
heading("States and the completion block")
let completionRan = DispatchSemaphore(value: 0)
let watched = Reporting.AnnouncingOperation("watched", report: say)  // reports to the pictures too
watched.completionBlock = { [weak watched] in  // weak: the operation holds this block
    say("completion block: the operation is \(watched.map { state(of: $0) } ?? "gone")")
    completionRan.signal()
}
say("before the queue has it: \(state(of: watched))")
queue.addOperation(watched)
// waitUntilAllOperationsAreFinished does not wait for completion blocks: wait for it.
waitOrExit(completionRan, for: "the completion block")

// 5. A cancelled operation that never started never runs its block.
heading("Cancelling an operation before it starts")
let held = OperationQueue.named("held")
held.isSuspended = true  // nothing starts while the queue is suspended
let neverRuns = BlockOperation.named("neverRuns") { say("this line is never printed") }
held.addOperation(neverRuns)
neverRuns.cancel()
say("cancelled while pending: \(state(of: neverRuns))")
held.isSuspended = false
held.waitUntilAllOperationsAreFinished()
say("after the queue let it go: \(state(of: neverRuns)), its block never ran")
