import Foundation
import OperationBasics
import TaskOperations
import TestSupport
import Testing

// Every order below is caused: by dependencies, by a suspended queue, or by operations that
// wait for each other. No sleep decides anything.
@Suite("Chapter 0 — operations in five minutes")
struct OperationBasicsTests {
    @Test("dependencies decide the order, whatever order the operations were added in")
    func dependenciesDecideTheOrder() async {
        let log = EventLog()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        let download = BlockOperation { log.record("download") }
        let resize = BlockOperation { log.record("resize") }
        let upload = BlockOperation { log.record("upload") }
        resize.addDependency(download)
        upload.addDependency(resize)
        #expect(await queue.runs([upload, resize, download]))
        #expect(log.events == ["download", "resize", "upload"])
    }

    @Test("a queue of width 2 runs two independent operations at once, never three")
    func widthTwo() async {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        #expect(await Self.operationsStartedWhileAllAreHeld(on: queue, width: 2) == 2)
    }

    @Test("control: a queue of width 3 starts a third while two are held")
    func widthThreeStartsAThird() async {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 3
        #expect(await Self.operationsStartedWhileAllAreHeld(on: queue, width: 3) == 3)
    }

    /// Adds four operations that each hold until the test lets them go, and returns how many
    /// started while all were held: once `width` have started, one more gets a short window.
    /// They hold without holding a thread (chapter 5's `TaskOperation` awaits), so only the
    /// queue's width limits how many start: operations that blocked a thread each would also
    /// be limited by how many threads Dispatch lends.
    static func operationsStartedWhileAllAreHeld(on queue: OperationQueue, width: Int) async -> Int {
        let started = Counter(target: width)
        let oneMoreStarted = Counter(target: width + 1)
        let open = Flag()
        let operations = (1...4).map { _ in
            TaskOperation {
                started.increment()
                oneMoreStarted.increment()
                _ = await open.wait(seconds: 60)  // bounded: the test raises the flag
            }
        }
        queue.add(operations)
        #expect(await started.waitForTarget(seconds: 30), "\(width) operations should run at once")
        // A wider queue starts one more at once; this one never does while they are held, so
        // the window always runs out for it.
        _ = await oneMoreStarted.staysBelowTarget(for: 0.25)
        let startedTogether = started.value
        open.raise()
        #expect(await drained(queue))
        #expect(started.value == 4, "every operation runs in the end")
        return startedTogether
    }

    @Test("a serial queue runs one operation at a time")
    func serialQueue() async {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        #expect(await Self.operationsRunAlongsideAHeldOne(on: queue, othersMayStart: false) == 0)
    }

    @Test("control: a queue of default width runs others while one is held")
    func defaultWidthOverlaps() async {
        #expect(await Self.operationsRunAlongsideAHeldOne(on: OperationQueue(), othersMayStart: true) > 0)
    }

    /// Adds five operations and holds the first one's work until the test lets it go; returns
    /// how many of the others started while it was held. A serial queue cannot start any: the
    /// held one still runs. (Operations this short rarely overlap on their own, so without the
    /// hold a wider queue would often pass for a serial one.) If `othersMayStart`, the test
    /// waits until one does; if not, they get a short window, which a serial queue always
    /// lets run out.
    static func operationsRunAlongsideAHeldOne(on queue: OperationQueue, othersMayStart: Bool) async -> Int {
        let firstStarted = Flag()
        let release = Flag()
        let othersStarted = Counter(target: 1)
        // Held without holding a thread (an operation that awaits, chapter 5's TaskOperation).
        let held = TaskOperation {
            firstStarted.raise()
            _ = await release.wait(seconds: 60)  // bounded: the test raises the flag
        }
        let others = (1...4).map { _ in BlockOperation { othersStarted.increment() } }
        queue.add([held] + others)
        #expect(await firstStarted.wait(seconds: 30))
        // A wider queue starts the others at once; a serial one never does while `held` runs.
        if othersMayStart {
            #expect(await othersStarted.waitForTarget(seconds: 30), "no other operation started")
        } else {
            _ = await othersStarted.staysBelowTarget(for: 0.25)
        }
        let alongside = othersStarted.value
        release.raise()
        #expect(await drained(queue))
        #expect(othersStarted.value == 4, "every operation runs in the end")
        return alongside
    }

    @Test("the queue calls start(), start() calls main(): ready, executing, finished")
    func statesAndStart() async {
        let log = EventLog()
        let operation = AnnouncingOperation("op", report: log.record)
        #expect(state(of: operation) == "ready")
        #expect(await OperationQueue().runs(operation))
        #expect(log.events == ["op: the queue called start()", "op: start() called main(), which is executing"])
        #expect(state(of: operation) == "finished")
    }

    @Test("an operation with an unfinished dependency is not ready")
    func notReady() {
        let first = BlockOperation {}
        let second = BlockOperation {}
        second.addDependency(first)
        #expect(state(of: second) == "waiting for its dependencies")
    }

    @Test("the completion block runs after finished; captured weak, the operation is freed")
    func completionBlock() async {
        let reference = WeakReference()
        let sawFinished = Flag()
        do {
            let operation = BlockOperation {}
            operation.completionBlock = { [weak operation] in
                if operation?.isFinished == true { sawFinished.raise() }
            }
            reference.object = operation
            OperationQueue().addOperation(operation)
        }
        #expect(await sawFinished.wait(seconds: 30), "the completion block should see the operation finished")
        #expect(await reference.isFreed(), "nothing should keep a finished operation")
    }

    #if os(Linux)
        @Test("Linux: a completion block that captures its operation strongly keeps it alive for ever")
        func strongCaptureIsACycleOnLinux() async {
            // Linux's Foundation never clears completionBlock, so operation → block → operation
            // is a cycle. Darwin is expected to free it: Apple documents that "in iOS 8 and
            // later and macOS 10.10 and later, this property is set to nil after the completion
            // block begins executing" (read, not verified: no Mac here). Not asserted there.
            let reference = WeakReference()
            let ran = Flag()
            let queue = OperationQueue()
            do {
                let operation = BlockOperation {}
                operation.completionBlock = {
                    _ = operation.isFinished  // a strong capture: the block holds the operation
                    ran.raise()
                }
                reference.object = operation
                queue.addOperation(operation)
            }
            #expect(await ran.wait(seconds: 30))
            #expect(await drained(queue))
            #expect(await reference.staysAlive(for: 1), "the cycle keeps it alive")
            // Breaking the cycle by hand frees it: it was the block that held it.
            (reference.object as? Operation)?.completionBlock = nil
            #expect(await reference.isFreed())
        }
    #endif

    @Test("a cancelled pending operation never runs its block; the queue still finishes it")
    func cancelledPending() async {
        let ran = Flag()
        let queue = OperationQueue()
        queue.isSuspended = true
        let operation = BlockOperation { ran.raise() }
        queue.addOperation(operation)
        operation.cancel()
        #expect(state(of: operation) == "cancelled")
        queue.isSuspended = false
        #expect(await queueLearnsFinished(operation))
        #expect(state(of: operation) == "cancelled and finished")
        #expect(!ran.isRaised)
    }
}
