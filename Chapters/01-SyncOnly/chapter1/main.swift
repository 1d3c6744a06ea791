// Chapter 1 — the sync-only operation. Read along: Chapters/01-SyncOnly/README.md
import ChapterSupport
import Dispatch
import Foundation
import SyncOnly

// The asynchronous work of this chapter runs on `heldWork`, a serial queue that we keep
// suspended until the OperationQueue says it is done. So the order printed below is caused
// by the bug, not by a sleep. An OperationQueue that waited for the asynchronous work would
// never be done: the waits below have no time limit, so this program would hang (the tests
// run the same scenes with bounded waits, and fail instead).
let heldWork = DispatchQueue(label: "chapter1.held-async-work")

heading("An asynchronous operation, added with waitUntilFinished: true")
heldWork.suspend()  // the asynchronous work waits here until the queue has reported finished
let executed = DispatchSemaphore(value: 0)
let operation = SyncOnlyOperation(after: Pacing.delay(0.5), on: heldWork) {
    say("Executing")
    executed.signal()
}
// `.named`: Foundation's `name`, which labels the chapter's pictures; drawNote adds a step to them.
let queue = OperationQueue.named("queue")
queue.addOperations([operation.named("operation")], waitUntilFinished: true)
say("Finish Execution")
say("The queue says isFinished = \(operation.isFinished), but the work has not run yet.")
drawNote("heldWork.resume()")
heldWork.resume()  // only now can "Executing" be printed
waitOrExit(executed, for: "the asynchronous work")

heading("Two sync-then-async closures on a serial queue")
heldWork.suspend()
let serialQueue = OperationQueue.named("serial")
serialQueue.maxConcurrentOperationCount = 1
let asyncStepsDone = DispatchGroup()
let steps = ["First", "Second"].map { name in
    asyncStepsDone.enter()
    let step = syncThenAsyncStep(name, asyncAfter: Pacing.delay(0.5), on: heldWork) { line in
        say(line)
        if line.hasSuffix("async operation complete") { asyncStepsDone.leave() }
    }
    return BlockOperation.named(name, step)
}
serialQueue.addOperations(steps, waitUntilFinished: false)  // both at once: First cannot start before Second is in
serialQueue.waitUntilAllOperationsAreFinished()
drawNote("heldWork.resume()")
heldWork.resume()
if asyncStepsDone.wait(timeout: .now() + 10) == .timedOut {
    say("Gave up waiting for the asynchronous steps.")
    exit(1)
}
say("The serial queue ran the second closure before the first one's async step.")
