// Chapter 4 — CompletionOperation. Read along: Chapters/04-CompletionOperations/README.md
import ChapterSupport
import CompletionOperations
import Dispatch
import Foundation

heading("Two CompletionOperations on a serial queue")
let serialQueue = OperationQueue.named("serial")  // a plain OperationQueue; its name labels the pictures
serialQueue.maxConcurrentOperationCount = 1
let operations = ["First", "Second"].map { name in
    CompletionOperation { complete in
        say("\(name) sync operation complete")
        DispatchQueue.global().asyncAfter(deadline: .now() + Pacing.delay(0.4)) {
            say("\(name) async operation complete")
            complete()  // only now may the serial queue start the next operation
        }
    }.named(name)
}
serialQueue.addOperations(operations, waitUntilFinished: true)

// No picture: when the queue starts the operation, relative to the main thread's next lines, is
// not caused (the story needs only that the work waits for the main thread).
heading("Main-queue work in a command-line program", drawn: false)
// The articles complete on DispatchQueue.main. Work sent there runs only while the main
// thread serves the main queue — and here the main thread is the one waiting for it.
let mainQueueOperation = CompletionOperation { complete in
    DispatchQueue.main.async {
        say("Main-queue work ran")
        complete()
    }
}
let finished = DispatchSemaphore(value: 0)
mainQueueOperation.completionBlock = {
    say("The operation finished")
    finished.signal()
    exit(0)  // the story ends here: dispatchMain() below never returns
}
OperationQueue().addOperation(mainQueueOperation)
say("The operation hops to DispatchQueue.main; the main thread blocks, waiting for it")
// A bound, not pacing: this wait cannot succeed, so it is the same with CHAPTER_PACING=0.
if finished.wait(timeout: .now() + 0.5) == .timedOut {
    say("After 0.5 s the work has not run: it needs the main thread, which is blocked")
}
say("The main thread calls dispatchMain() and serves the main queue")
DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
    say("Gave up after 10 s waiting for the main-queue work.")
    exit(1)
}
dispatchMain()
