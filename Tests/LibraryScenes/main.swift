import AsyncOperations
import CompletionOperations
import Dispatch
import Foundation
import TestSupport

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

/// Waits (blocking) until `condition` holds, at most `seconds`.
func eventually(within seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = DispatchTime.now() + seconds
    while !condition() {
        guard DispatchTime.now() < deadline else { return false }
        usleep(1_000)
    }
    return true
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

// An operation cancelled behind a pending barrier block, on queues whose operations run on
// the main thread: its underlying queue is the main queue, or a serial queue that targets it.
// On Linux, `OperationQueue.current` answers the main queue on the main thread, whatever queue
// started the operation. Let go of while the barrier waits, then the barrier finishes.
case "barrier-on-the-main-thread":
    startWatchdog(seconds: 60)
    whileTheMainThreadServesItsRunLoop {
        for round in 0..<6 {
            let queue = OperationQueue()
            queue.underlyingQueue =
                round % 2 == 0 ? DispatchQueue(label: "targets the main queue", target: .main) : .main
            let blocker = HeldOperation()
            queue.addOperation(blocker)
            blocker.running.wait()
            queue.addBarrierBlock {}
            weak var weakOperation: Operation?
            do {
                let operation = QuickOperation()
                weakOperation = operation
                queue.addOperation(operation)
                operation.cancel()
            }
            // Time for a cancelled operation that finishes at once to be freed.
            _ = eventually(within: 0.2) { weakOperation == nil }
            blocker.release()
            guard eventually(within: 10, { queue.operationCount == 0 }) else { fail("the queue never drained") }
            guard eventually(within: 5, { weakOperation == nil }) else { fail("the operation was never freed") }
        }
        exit(0)
    }

// The documented limit: on Linux, a queue whose operations run on the main thread cannot be
// known from its operation (`OperationQueue.current` answers the main queue), so an operation
// cancelled while a listed dependency still runs, behind a pending barrier block, gets no
// keeper and is freed while the barrier still holds it. Exits 3 when it is freed before the
// barrier ran (without letting the barrier finish, which would follow the freed pointer).
case "running-dependency-and-barrier-on-the-main-thread":
    startWatchdog(seconds: 60)
    whileTheMainThreadServesItsRunLoop {
        let queue = OperationQueue()
        queue.underlyingQueue = .main
        let blocker = HeldOperation()
        let dependency = HeldOperation()
        queue.addOperation(blocker)
        OperationQueue().addOperation(dependency)
        blocker.running.wait()
        dependency.running.wait()
        queue.addBarrierBlock {}
        weak var weakOperation: Operation?
        do {
            let operation = QuickOperation()
            weakOperation = operation
            operation.addDependency(dependency)
            queue.addOperation(operation)
            operation.cancel()
        }
        if eventually(within: 2, { weakOperation == nil }) {
            print("freed while the barrier block was pending")
            exit(3)
        }
        blocker.release()
        dependency.release()
        guard eventually(within: 10, { queue.operationCount == 0 }) else { fail("the queue never drained") }
        guard eventually(within: 5, { weakOperation == nil }) else { fail("the operation was never freed") }
        exit(0)
    }

// `cancel()` then `start()` by hand on the main thread, no queue involved, in a program that
// never serves the main queue.
case "cancelled-hand-start-on-the-main-thread":
    startWatchdog(seconds: 20)
    weak var weakOperation: Operation?
    do {
        let operation = QuickOperation()
        weakOperation = operation
        operation.cancel()
        operation.start()
        guard operation.isFinished else { fail("start() did not finish the cancelled operation") }
    }
    guard eventually(within: 2, { weakOperation == nil }) else { fail("the finished operation was never freed") }
    guard OperationQueue.main.operationCount == 0 else {
        fail("the main queue holds \(OperationQueue.main.operationCount) operations")
    }
    OperationQueue.main.waitUntilAllOperationsAreFinished()  // the watchdog ends a deadlock
    exit(0)

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
        weak var weakOperation: Operation?
        do {
            let operation = CompletionOperation { done in done() }
            weakOperation = operation
            operation.completionBlock = { finished.signal() }
            queue.addOperation(operation)  // picked: its start waits in the held dispatch queue
            operation.addDependency(dependency)  // too late to hold it back
        }
        held.resume()
        guard finished.wait(timeout: .now() + 10) == .success else { fail("the operation never finished") }
        let other = OperationQueue()
        other.addOperation(dependency)
        other.waitUntilAllOperationsAreFinished()
        guard eventually(within: 5, { weakOperation == nil }) else { fail("the operation was never freed") }
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
    print("unknown scene; scenes: barrier-on-the-main-thread, running-dependency-and-barrier-on-the-main-thread,")
    print("cancelled-hand-start-on-the-main-thread,")
    print("not-ready-hand-start-on-the-main-thread, late-dependency-on-the-main-thread,")
    print("not-ready-hand-start-in-a-main-queue-block")
    exit(2)
}
