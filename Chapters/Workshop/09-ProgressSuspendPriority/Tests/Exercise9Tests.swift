import Exercise9
import Foundation
import TestSupport
import Testing

@Suite("Exercise 9 — progress a parent Progress sees")
struct Exercise9Tests {
    @Test("a parent sees the operation's progress advance, one step at a time")
    func parentSeesSteps() async {
        let seen = EventLog()
        let parent = Progress(totalUnitCount: 1)
        // Each step records what the parent saw when it began: the steps before it, done.
        let operation = ReportingOperation(steps: 4) { _ in seen.record("\(parent.fractionCompleted)") }
        parent.addChild(operation.progress, withPendingUnitCount: 1)
        guard await OperationQueue().runs(operation, within: 5) else {
            Issue.record("the operation never finished: does main() still call finish()?")
            return
        }
        #expect(
            seen.events == ["0.0", "0.25", "0.5", "0.75"],
            "each step should begin with the earlier ones counted: set progress.completedUnitCount after a step")
        #expect(parent.fractionCompleted == 1, "after the last step, the parent should be complete")
    }

    @Test("cancelling the parent progress cancels the operation; no step runs after it")
    func parentCancelCancels() async {
        let steps = EventLog()
        let firstStepStarted = Flag()
        let go = DispatchSemaphore(value: 0)
        let parent = Progress(totalUnitCount: 1)
        let operation = ReportingOperation(steps: 3) { step in
            steps.record("\(step)")
            firstStepStarted.raise()
            if step == 1 { _ = go.wait(timeout: .now() + 5) }  // the operation's own thread, bounded
        }
        parent.addChild(operation.progress, withPendingUnitCount: 1)
        let queue = OperationQueue()
        queue.addOperation(operation)
        guard await firstStepStarted.wait(seconds: 5) else {
            Issue.record("the first step never ran")
            go.signal()
            return
        }
        parent.cancel()
        // Foundation may call the cancellation handler on another thread: look for a while.
        let deadline = ContinuousClock.now + .seconds(2)
        while !operation.isCancelled && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let cancelled = operation.isCancelled
        go.signal()
        #expect(
            cancelled, "cancelling the parent progress should cancel the operation: give progress a cancellationHandler"
        )
        guard await queueLearnsFinished(operation, within: 5) else {
            Issue.record("the operation never finished: does main() still call finish() when it stops early?")
            return
        }
        #expect(steps.events == (cancelled ? ["1"] : ["1", "2", "3"]), "no step should run after the cancel")
    }
}
