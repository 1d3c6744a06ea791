import AsyncOperations
import Foundation
import ProgressSuspendPriority
import TestSupport
import Testing

// SteppedOperation where an app takes it: no steps, a cancel while paused, and several of
// them under one parent Progress, each advanced from its own thread.
@Suite("Chapter 9 — SteppedOperation's edges")
struct SteppedOperationEdgeTests {
    #if os(macOS) || os(Linux)
        @Test("steps: 0 finishes at once, with nothing to do, and its progress complete", .exitTest)
        func noSteps() async {
            await #expect(processExitsWith: .success) {
                startWatchdog(seconds: 60)
                let operation = SteppedOperation("nothing", steps: 0, turnstile: Turnstile(timeout: 30))
                guard !operation.progress.isFinished else { exit(4) }  // not before it ran
                guard await OperationQueue().runs(operation, within: 30) else { exit(2) }
                guard operation.progress.isFinished, operation.progress.fractionCompleted == 1 else { exit(3) }
                exit(0)
            }
        }

        @Test("a parent of a 0-step and a 1-step operation ends complete")
        func parentOfAnEmptyChild() async {
            let empty = SteppedOperation("empty", steps: 0, turnstile: Turnstile(timeout: 30))
            let turnstile = Turnstile(timeout: 30)
            let one = SteppedOperation("one", steps: 1, turnstile: turnstile)
            let parent = Progress(totalUnitCount: 2)
            parent.addChild(empty.progress, withPendingUnitCount: 1)
            parent.addChild(one.progress, withPendingUnitCount: 1)
            let queue = OperationQueue()
            queue.add([empty, one])
            #expect(await advance(turnstile))
            #expect(await drained(queue))
            #expect(parent.fractionCompleted == 1, "\(describe(parent))")
        }

        @Test("steps below 0 trap at init, naming the mistake", .exitTest)
        func negativeSteps() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                _ = SteppedOperation("backwards", steps: -1, turnstile: Turnstile(timeout: 1))
                exit(0)
            }
            let printed = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(printed.contains("steps must not be negative"), "\(printed)")
        }
    #endif

    @Test("cancelled while paused: the work stops at once, not when its resume wait runs out")
    func cancelWhilePaused() async {
        let turnstile = Turnstile(timeout: 30)
        let log = EventLog()
        let operation = SteppedOperation("export", steps: 2, turnstile: turnstile, report: log.record)
        OperationQueue().addOperation(operation)
        #expect(await advance(turnstile))
        operation.progress.pause()
        #expect(await advance(turnstile), "the work acknowledges the pause")
        operation.cancel()
        // The work waits up to 10 s for a resume; a cancel must not wait that out.
        #expect(await queueLearnsFinished(operation, within: 30))
        #expect(log.events == ["export: paused before step 2", "export: cancelled while paused, stops before step 2"])
        #expect(operation.progress.completedUnitCount == 1)
    }

    @Test("two operations under one parent Progress, each advanced from its own thread: the parent ends complete")
    func parentOfConcurrentChildren() async {
        let steps = 2_000
        let turnstiles = [Turnstile(timeout: 30), Turnstile(timeout: 30)]
        let operations = turnstiles.enumerated().map { index, turnstile in
            SteppedOperation("child \(index)", steps: steps, turnstile: turnstile)
        }
        let parent = Progress(totalUnitCount: 2)
        for operation in operations { parent.addChild(operation.progress, withPendingUnitCount: 1) }
        let queue = OperationQueue()
        queue.add(operations)
        // Each driver thread lets its operation through every step; the two work threads
        // advance their progress at the same time.
        let drivers = turnstiles.map { turnstile in
            Task { await blockingCall(within: 60) { for _ in 0..<steps { turnstile.advance() } } }
        }
        for driver in drivers { #expect(await driver.value) }
        #expect(await drained(queue, within: 30))
        #expect(operations.allSatisfy { $0.progress.completedUnitCount == Int64(steps) })
        #expect(parent.completedUnitCount == 2, "the parent counts both children complete")
        #expect(parent.fractionCompleted == 1, "the parent's fraction is \(parent.fractionCompleted)")
    }

    /// Lets one step through, off the cooperative pool; false if the work never acknowledged it.
    private func advance(_ turnstile: Turnstile) async -> Bool {
        let acknowledged = Flag()
        let returned = await blockingCall(within: 30) { if turnstile.advance() { acknowledged.raise() } }
        return returned && acknowledged.isRaised
    }
}
