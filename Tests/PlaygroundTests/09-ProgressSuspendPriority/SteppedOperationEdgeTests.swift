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

    @Test("cancelled while paused: the work stops at once")
    func cancelWhilePaused() async {
        let turnstile = Turnstile(timeout: 30)
        let log = EventLog()
        let operation = SteppedOperation("export", steps: 2, turnstile: turnstile, report: log.record)
        OperationQueue().addOperation(operation)
        #expect(await advance(turnstile))
        operation.progress.pause()
        #expect(await advance(turnstile), "the work acknowledges the pause")
        operation.cancel()
        // A pause lasts until resume() or cancel(): the cancel ends it.
        #expect(await queueLearnsFinished(operation, within: 30))
        #expect(log.events == ["export: paused before step 2", "export: cancelled while paused, stops before step 2"])
        #expect(operation.progress.completedUnitCount == 1)
    }

    /// Runs `export`, 3 steps, through step 1; calls `before` between step 1 and step 2 (the
    /// work waits at the turnstile meanwhile, so whatever `before` does comes before it looks);
    /// then pauses before step 3 and checks that the pause holds until `resume()`.
    private func nextPauseHolds(after before: (Progress) -> Void) async {
        let turnstile = Turnstile(timeout: 30)
        let log = EventLog()
        let resumed = Flag()
        let operation = SteppedOperation(
            "export", steps: 3, turnstile: turnstile, report: log.recorder(raising: resumed, at: "export: resumed"))
        let finished = finishedFlag(operation)
        OperationQueue().addOperation(operation)
        #expect(await advance(turnstile))
        before(operation.progress)
        #expect(await advance(turnstile), "step 2 runs: nothing is paused now")
        operation.progress.pause()
        #expect(await advance(turnstile), "the work acknowledges the pause before step 3")
        // Only a negative check: a pause that holds always waits out this window; one woken by
        // what `before` left behind says "resumed" at once, and one that ends when the work's
        // wait for a wake-up times out (after 1 s) says it within the window.
        #expect(await resumed.staysLowered(for: 1.5), "the pause did not hold: \(log.events)")
        #expect(operation.progress.completedUnitCount == 2, "no step while paused")
        operation.progress.resume()
        #expect(await resumed.wait(seconds: 30))
        #expect(await finished.wait(seconds: 30))
        #expect(operation.progress.completedUnitCount == 3)
        #expect(log.events == ["export: paused before step 3", "export: resumed"])
    }

    @Test("resume() while not paused leaves nothing behind: the next pause holds")
    func strayResumeLeavesNothingBehind() async {
        await nextPauseHolds { $0.resume() }
    }

    @Test("a pause and a resume before the work looks leave nothing behind: the next pause holds")
    func quickPauseAndResumeLeaveNothingBehind() async {
        await nextPauseHolds { progress in
            progress.pause()
            progress.resume()
        }
    }

    /// In the slow group: it waits 11 s.
    @Test("a long pause holds: 11 s later the work still waits, neither finished nor cancelled", .slow)
    func longPauseHolds() async {
        let turnstile = Turnstile(timeout: 30)
        let log = EventLog()
        let operation = SteppedOperation("export", steps: 2, turnstile: turnstile, report: log.record)
        let finished = finishedFlag(operation)
        OperationQueue().addOperation(operation)
        #expect(await advance(turnstile))
        operation.progress.pause()
        #expect(await advance(turnstile), "the work acknowledges the pause")
        // Only a negative check, and a slow one: a pause has no time limit, so 11 s (longer than
        // the 10 s the work used to allow a pause) pass without the operation finishing.
        try? await Task.sleep(for: .seconds(11))
        #expect(!finished.isRaised, "the paused operation finished by itself: \(log.events)")
        #expect(!operation.isCancelled)
        operation.progress.resume()
        #expect(await finished.wait(seconds: 30))
        #expect(operation.progress.completedUnitCount == 2)
        #expect(log.events == ["export: paused before step 2", "export: resumed"])
    }

    @Test("a race test: two children advanced from two threads at once, their parent ends complete")
    func parentOfConcurrentChildren() async {
        // Linux's Progress takes no lock: without SteppedOperation's shared lock, the two work
        // threads' updates of the parent race, and now and then one is lost. A race cannot be
        // forced, only given chances: each round runs two children of `steps` steps at once,
        // their steps let through in bursts (several driver threads per child), and the test
        // stops at the first round whose parent ends short.
        let rounds = 20
        let steps = 2_000
        let driversPerChild = 4
        for round in 1...rounds {
            let turnstiles = [Turnstile(timeout: 30), Turnstile(timeout: 30)]
            let operations = turnstiles.enumerated().map { index, turnstile in
                SteppedOperation("child \(index)", steps: steps, turnstile: turnstile)
            }
            let parent = Progress(totalUnitCount: 2)
            for operation in operations { parent.addChild(operation.progress, withPendingUnitCount: 1) }
            let queue = OperationQueue()
            queue.add(operations)
            let drivers = turnstiles.flatMap { turnstile in
                (0..<driversPerChild).map { _ in
                    Task {
                        await blockingCall(within: 60) {
                            for _ in 0..<(steps / driversPerChild) { turnstile.advance() }
                        }
                    }
                }
            }
            for driver in drivers { #expect(await driver.value) }
            #expect(await drained(queue, within: 30))
            #expect(operations.allSatisfy { $0.progress.completedUnitCount == Int64(steps) })
            guard parent.completedUnitCount == 2, parent.fractionCompleted == 1 else {
                Issue.record(
                    "round \(round): the parent ends at \(parent.completedUnitCount)/2, \(parent.fractionCompleted)")
                return
            }
        }
    }

    #if os(macOS) || os(Linux)
        // Linux's Progress takes no lock: a parent's cancel() walks its children while each child
        // that completes removes itself from them. A race cannot be forced, only given chances:
        // 300 rounds, each cancelling a parent 50 times while its 8 children complete at once.
        // With the cancel outside `withProgressLock` the child process died (SIGABRT) in 10 of 10
        // runs; in 4 of 10 with 30 rounds.
        @Test(
            "a race test: a parent cancelled from another thread while its children finish, no crash", .exitTest)
        func parentCancelledWhileChildrenFinish() async {
            await #expect(processExitsWith: .success) {
                startWatchdog(seconds: 120 * boundStretch)
                Self.cancelParentWhileChildrenFinish(rounds: 300, children: 8)
                exit(0)
            }
        }
    #endif

    #if os(macOS) || os(Linux)
        @Test(
            "the operation cancelled inside withProgressLock: its own cancel takes the lock again, no deadlock",
            .exitTest)
        func cancelInsideTheLock() async {
            await #expect(processExitsWith: .success) {
                startWatchdog(seconds: 30 * boundStretch)
                let operation = SteppedOperation("upload", steps: 1, turnstile: Turnstile(timeout: 1))
                SteppedOperation.withProgressLock { operation.cancel() }  // onCancel takes the lock too
                exit(operation.progress.isCancelled ? 0 : 1)
            }
        }
    #endif

    /// Rounds of one parent whose `children` two-step operations, all at their last step, are let
    /// through at once while another thread cancels the parent, `cancels` times in a row. Each
    /// child that completes its last step removes itself from the parent's children, which
    /// `cancel()` walks.
    static func cancelParentWhileChildrenFinish(rounds: Int, children: Int, cancels: Int = 50) {
        for _ in 0..<rounds {
            let turnstiles = (0..<children).map { _ in Turnstile(timeout: 60) }
            let operations = turnstiles.enumerated().map { SteppedOperation("child \($0)", steps: 2, turnstile: $1) }
            let parent = Progress(totalUnitCount: Int64(children))
            for operation in operations { parent.addChild(operation.progress, withPendingUnitCount: 1) }
            let queue = OperationQueue()
            queue.addOperations(operations, waitUntilFinished: false)
            for turnstile in turnstiles { turnstile.advance() }  // every child has started, and waits for step 2
            let cancelled = DispatchSemaphore(value: 0)
            Thread {
                for _ in 0..<cancels { SteppedOperation.withProgressLock { parent.cancel() } }
                cancelled.signal()
            }.start()
            DispatchQueue.concurrentPerform(iterations: children) { turnstiles[$0].advance() }
            queue.waitUntilAllOperationsAreFinished()
            cancelled.wait()
        }
    }

    /// Lets one step through, off the cooperative pool; false if the work never acknowledged it.
    private func advance(_ turnstile: Turnstile) async -> Bool {
        let acknowledged = Flag()
        let returned = await blockingCall(within: 30) { if turnstile.advance() { acknowledged.raise() } }
        return returned && acknowledged.isRaised
    }
}
