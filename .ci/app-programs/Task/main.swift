// An app target's code, as a learner writes it (see Base/main.swift): chapter 5's main-actor story
// where everything is main-actor isolated by default. Chapter 5's README shows what it prints.
import Foundation

/// An app's model type: main-actor isolated, as every unannotated type of the app target.
final class Store {
    var greeting = "Hello from the app's store"
}

let store = Store()
let queue = OperationQueue()

// A watchdog: a deadlock fails instead of hanging.
Thread {
    Thread.sleep(forTimeInterval: 30)
    print("FAILED: the watchdog fired")
    exit(86)
}.start()

/// Blocks the main thread until `operation` has finished, at most `seconds`: true if it did.
func blockUntilFinished(_ operation: Operation, atMost seconds: Double) -> Bool {
    let finished = DispatchSemaphore(value: 0)
    operation.completionBlock = { finished.signal() }
    queue.addOperation(operation)
    return finished.wait(timeout: .now() + seconds) == .success
}

// Written in main-actor code, the closure does not inherit the main actor: it is @Sendable.
let plain = TaskOperation { Thread.isMainThread ? "on the main thread" : "off the main thread" }
print("Blocking the main thread for TaskOperation { … }:", blockUntilFinished(plain, atMost: 5) ? "it ran" : "stuck")
print("Its closure ran", try plain.value ?? "never")

// A closure that touches the app's own types must await them: they are main-actor isolated.
let asking = TaskOperation { await store.greeting }
print(
    "Blocking the main thread for TaskOperation { await store.greeting }:",
    blockUntilFinished(asking, atMost: 0.5) ? "it ran" : "stuck after 0.5 s")

// Awaiting instead of blocking: both run.
await asking.untilFinished()
print("Awaited:", try asking.value ?? "never", "/", try await queue.value(of: TaskOperation { await store.greeting }))
exit(0)
