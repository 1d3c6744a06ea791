// Chapter 5 — TaskOperation: async/await inside an operation.
// Read along: Chapters/05-TaskOperations/README.md
import ChapterSupport
import Dispatch
import Foundation
import ManualState
import TaskOperations

let queue = OperationQueue.named("queue")  // a plain OperationQueue; names label the pictures

heading("An async closure inside an operation")
let hello = TaskOperation {
    try await Task.sleep(nanoseconds: UInt64(Pacing.scale * 500_000_000))
    say("Executing")
    return "Hello World!"
}.named("hello")
addAndWaitUntilFinished(hello)
say("Finished")
say(try hello.value ?? "no value")

// No picture: when the queue starts these operations, relative to the 0.5 s waits below, is
// not caused.
heading("The article's operation, in Swift 6", drawn: false)
// The closure is written in main.swift's top-level code, which is main-actor isolated. The
// article's operation takes it as a plain (non-@Sendable) closure, so it keeps the main actor:
// its task must wait for the main thread, which is blocked below, waiting for the task.
let stuck = AsyncAwaitPost.AsyncOperationWithTask { "Hello from the main actor" }.named("stuck")
say("The main thread blocks, waiting for the article's operation")
if !addAndBlock(stuck, giveUpAfter: 0.5) {
    say("After 0.5 s it has not run: its closure needs the main actor, whose thread is blocked")
}
// TaskOperation's @Sendable closure does not inherit the main actor, but it can ask for it.
let alsoStuck = TaskOperation { @MainActor in "Hello again from the main actor" }.named("alsoStuck")
if !addAndBlock(alsoStuck, giveUpAfter: 0.5) {
    say("TaskOperation { @MainActor in ... } has not run after 0.5 s either")
}

// No picture: the awaiting calls leave the main actor before they begin, so where they begin,
// relative to the operations that were waiting for the main actor, is not caused.
heading("Awaiting instead of blocking", drawn: false)
// Awaiting suspends the main actor instead of blocking its thread: both closures run.
await stuck.untilFinished()
await alsoStuck.untilFinished()
say("Once the main thread was free, both ran: \(describe(stuck.getResult())), \(describe(alsoStuck.result))")
let greeting = try await queue.value(of: TaskOperation { "Hello, without blocking" }.named("greeting"))
say(greeting)

heading("Cancelling the awaiting task cancels the operation")
let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
let download = TaskOperation {
    startedSignal.yield()
    try await Task.sleep(nanoseconds: 60 * 1_000_000_000)  // ends early only if cancelled
    return "downloaded"
}.named("download")
let awaiting = Task { try await queue.value(of: download) }
for await _ in started { break }
say("The download has started; the user cancels the awaiting task")
awaiting.cancel()
switch await awaiting.result {
case .success(let value): say("Unexpected success: \(value)")
case .failure(let error): say("The awaiting task threw \(type(of: error))")
}
say("The operation: isCancelled = \(download.isCancelled), result = \(describe(download.result))")

/// `queue.addOperations(_:waitUntilFinished: true)`, as the articles call it. The top-level code
/// above awaits, which makes it async code, where that blocking call is unavailable; a
/// synchronous function may still make it.
func addAndWaitUntilFinished(_ operation: Operation) {
    queue.addOperations([operation], waitUntilFinished: true)
}

/// The same blocking wait, but bounded: true if `operation` finished within `seconds`.
func addAndBlock(_ operation: Operation, giveUpAfter seconds: Double) -> Bool {
    let finished = DispatchSemaphore(value: 0)
    operation.completionBlock = { finished.signal() }
    queue.addOperation(operation)
    return finished.wait(timeout: .now() + seconds) == .success
}
