import CompletionOperations
import Dispatch
import Foundation

// Scenes that need the main thread, for `MainThreadTests`. Swift Testing runs an exit test's
// body off the main thread (the child's main thread has handed itself to Dispatch), so these
// run as a program of their own: `library-scenes <scene>`.
//
// Exit status: 0 the library held; 1 it did not (a line on standard output says why);
// 86 the watchdog fired (a hang). A trap or a crash ends the process with a signal.

/// Ends the process with 86 after `seconds`: a scene that hangs fails instead of hanging.
func startWatchdog(seconds: Double) {
    Thread {
        Thread.sleep(forTimeInterval: seconds)
        print("the watchdog fired after \(seconds) s")
        exit(86)
    }.start()
}

/// Runs `scene` on a thread of its own while the main thread serves the main queue from its
/// run loop, as an app's main thread does.
func whileTheMainThreadServesItsRunLoop(_ scene: @escaping @Sendable () -> Never) -> Never {
    Thread { scene() }.start()
    while true { _ = RunLoop.main.run(mode: .default, before: .distantFuture) }
}

func fail(_ why: String) -> Never {
    print(why)
    exit(1)
}

switch CommandLine.arguments.dropFirst().first ?? "" {

// `start()` by hand on the main thread before the operation's dependency has finished: a
// mistake, which Foundation's own operations trap on.
case "not-ready-hand-start-on-the-main-thread":
    startWatchdog(seconds: 20)
    let dependency = BlockOperation {}
    let operation = CompletionOperation { done in done() }
    operation.addDependency(dependency)
    operation.start()
    fail("start() ran the operation before its dependency had finished")

// A dependency added while a queue whose operations run on the main thread is starting the
// operation: it runs, as Foundation's own operations do, and the dependency, which runs later,
// finds nothing freed.
case "late-dependency-on-the-main-thread":
    startWatchdog(seconds: 60)
    whileTheMainThreadServesItsRunLoop {
        let held = DispatchQueue(label: "targets the main queue, held", target: .main)
        held.suspend()
        let queue = OperationQueue()
        queue.underlyingQueue = held
        let dependency = BlockOperation {}
        let finished = DispatchSemaphore(value: 0)
        let operation = CompletionOperation { done in done() }
        operation.completionBlock = { finished.signal() }
        queue.addOperation(operation)  // picked: its start waits in the held dispatch queue
        operation.addDependency(dependency)  // too late to hold it back
        held.resume()
        guard finished.wait(timeout: .now() + 10) == .success else { fail("the operation never finished") }
        let other = OperationQueue()
        other.addOperation(dependency)
        other.waitUntilAllOperationsAreFinished()
        withExtendedLifetime(operation) {}
        exit(0)
    }

// What cannot be told apart on Linux: a start by hand from a block that the main thread runs
// from its run loop, and the start of a queue whose operations run on the main thread.
case "not-ready-hand-start-in-a-main-queue-block":
    startWatchdog(seconds: 20)
    whileTheMainThreadServesItsRunLoop {
        let ran = DispatchSemaphore(value: 0)
        DispatchQueue.main.async {
            let operation = CompletionOperation { done in done() }
            operation.addDependency(BlockOperation {})
            operation.start()
            ran.signal()
        }
        guard ran.wait(timeout: .now() + 10) == .success else { fail("the block never ran") }
        print("ran")
        exit(0)
    }

default:
    print("unknown scene; scenes: not-ready-hand-start-on-the-main-thread, late-dependency-on-the-main-thread,")
    print("not-ready-hand-start-in-a-main-queue-block")
    exit(2)
}
