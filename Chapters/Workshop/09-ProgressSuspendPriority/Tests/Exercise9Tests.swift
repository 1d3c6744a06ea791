import Dispatch
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
            Issue.record("the operation never finished: does main() still call finish()? (hint: \"Count each step\")")
            return
        }
        #expect(
            seen.events == ["0.0", "0.25", "0.5", "0.75"],
            """
            when each step began, the parent saw \(seen.events): each step should begin with the earlier ones, and only \
            those, counted. Set progress.completedUnitCount once a step's work is done (hint: "Count each step")
            """)
        #expect(
            parent.fractionCompleted == 1,
            "after the last step, the parent should be complete (hint: \"Count each step\")")
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
            Issue.record("the first step never ran (hint: \"Count each step\")")
            go.signal()
            return
        }
        parent.cancel()
        // Foundation may call the cancellation handler on another thread: look for a while.
        let deadline = ContinuousClock.now + .seconds(5)
        while !operation.isCancelled && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let cancelled = operation.isCancelled
        go.signal()
        #expect(
            cancelled,
            """
            cancelling the parent progress should cancel the operation: give progress a cancellationHandler that \
            cancels it (hint: "Cancelling the progress")
            """)
        guard await queueLearnsFinished(operation, within: 5) else {
            Issue.record(
                "the operation never finished: does main() still call finish() when it stops early? (break, not return) (hint: \"Cancelling the progress\")"
            )
            return
        }
        #expect(
            steps.events == (cancelled ? ["1"] : ["1", "2", "3"]),
            "steps \(steps.events) ran: no step should run after the cancel (hint: \"Cancelling the progress\")")
        if cancelled {
            let fraction = parent.fractionCompleted
            #expect(
                abs(fraction - 1.0 / 3) < 0.001,
                """
                cancelled during step 1 of 3, the operation made its parent say \(Int((fraction * 100).rounded()))% done: \
                the parent counts the steps whose work ran — here one of three. A cancelled operation does not \
                complete the steps it skipped (hint: "Count each step")
                """)
        }
    }

    @Test("a parent cancelled before the operation starts cancels it at once: no step ever runs")
    func parentCancelledBeforeStart() async {
        let steps = EventLog()
        let parent = Progress(totalUnitCount: 1)
        let operation = ReportingOperation(steps: 3) { step in steps.record("\(step)") }
        parent.addChild(operation.progress, withPendingUnitCount: 1)
        parent.cancel()
        // Foundation may call the cancellation handler on another thread: look for a while.
        let deadline = ContinuousClock.now + .seconds(5)
        while !operation.isCancelled && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        guard operation.isCancelled else {
            Issue.record(
                """
                the parent was cancelled, but the operation, which had not started yet, was not: its queue would \
                still start it. Install the cancellation handler in init, not in main() (hint: "Cancelling the \
                progress")
                """)
            return
        }
        #expect(
            await OperationQueue().runs(operation, within: 5),
            "the cancelled operation never finished: main() calls finish() after its loop (hint: \"Cancelling the progress\")"
        )
        #expect(
            steps.events.isEmpty,
            "a cancelled operation ran steps \(steps.events) (hint: \"Cancelling the progress\")")
    }

    @Test("an operation that has finished is freed, while its parent progress lives on")
    func freedWhileTheParentLives() async {
        let parent = Progress(totalUnitCount: 1)
        weak var weakOperation: ReportingOperation?
        do {
            let operation = ReportingOperation(steps: 2) { _ in }
            weakOperation = operation
            parent.addChild(operation.progress, withPendingUnitCount: 1)
            #expect(
                await OperationQueue().runs(operation, within: 5),
                "the operation never finished (hint: \"Who holds whom\")")
        }
        let deadline = ContinuousClock.now + .seconds(5)  // the queue lets go of it on its own thread
        while weakOperation != nil && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        #expect(
            weakOperation == nil,
            """
            the finished operation was never freed: its progress (which the parent keeps) holds the cancellation \
            handler, and the handler holds the operation. Capture self weakly: [weak self] (hint: "Who holds whom")
            """)
        withExtendedLifetime(parent) {}
    }

    #if os(macOS) || os(Linux)
        @Test("an operation that a queue cancelled before it ran is gone; cancelling its parent then does nothing")
        func parentCancelledAfterTheOperationIsGone() async {
            // In a process of its own: a handler that reaches a freed operation crashes.
            let message = """
                the process crashed when the parent was cancelled after the operation was freed: the handler reached \
                an operation that no longer exists (unowned self). Capture self weakly: [weak self] (hint: "Who \
                holds whom")
                """
            await #expect(processExitsWith: .success, Comment(rawValue: message)) {
                Exercise9Tests.cancelTheParentOfAFreedOperationThenExit()
            }
        }
    #endif

    /// Cancels an operation before its queue starts it, lets it finish (no step runs, so its
    /// progress stays unfinished) and go, then cancels its parent progress; exits normally if
    /// nothing went wrong within a moment.
    static func cancelTheParentOfAFreedOperationThenExit() -> Never {
        let parent = Progress(totalUnitCount: 1)
        do {
            let operation = ReportingOperation(steps: 3) { _ in }
            parent.addChild(operation.progress, withPendingUnitCount: 1)
            let finished = DispatchSemaphore(value: 0)
            operation.completionBlock = { finished.signal() }
            operation.cancel()
            OperationQueue().addOperation(operation)
            _ = finished.wait(timeout: .now() + 5)
        }
        Thread.sleep(forTimeInterval: 0.2)  // the queue lets go of the operation on its own thread
        parent.cancel()
        Thread.sleep(forTimeInterval: 0.3)  // the handler may run on another thread
        exit(EXIT_SUCCESS)
    }
}
