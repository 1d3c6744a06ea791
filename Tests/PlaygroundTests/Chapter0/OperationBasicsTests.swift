import Foundation
import OperationBasics
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
        let gauge = WidthGauge()
        let twoStarted = Counter(target: 2)
        let threeStarted = Counter(target: 3)
        let open = Flag()
        let operations = (1...4).map { _ in
            BlockOperation {
                gauge.measure {
                    twoStarted.increment()
                    threeStarted.increment()
                    // A blocking wait in a synchronous operation, bounded: the test opens it.
                    let deadline = Date() + 60
                    while !open.isRaised && Date() < deadline { usleep(1_000) }
                }
            }
        }
        queue.add(operations)
        #expect(await twoStarted.waitForTarget(seconds: 30), "two operations should run at once")
        // Width 2 always waits out this short deadline; a wider queue starts a third at once.
        let thirdStartedEarly = await threeStarted.waitForTarget(seconds: 0.1)
        open.raise()
        #expect(!thirdStartedEarly)
        #expect(await drained(queue))
        #expect(gauge.most == 2)
    }

    @Test("a serial queue runs one operation at a time")
    func serialQueue() async {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let gauge = WidthGauge()
        let log = EventLog()
        let operations = (1...5).map { step in BlockOperation { gauge.measure { log.record("\(step)") } } }
        #expect(await queue.runs(operations))
        #expect(gauge.most == 1)
        #expect(log.events.count == 5)
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

    @Test("the completion block runs after finished, and the operation is freed")
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
