import AsyncOperations
import Dispatch
import Exercise9
import Foundation
import TestSupport
import Testing

// Each moment where another thread can act on the progress tree has a test that puts it there:
// the parent cancelled before the operation starts, during a step, right after the last step
// (as the finished child leaves its parent), after the operation is gone; a step counted while
// the test holds the tree's lock; two children counting at once. Whether a step is counted under
// the lock is judged by `countsUnderTheLock` alone: ThreadSanitizer does not see inside
// Foundation's Progress (Foundation is not built with it), so the two tests where threads meet
// in a Progress catch a count outside the lock only by chance (a lost update, a crash).
// Reference/Rules.md lists which test checks each rule.

@Suite("Exercise 9 — progress a parent Progress sees")
struct Exercise9Tests {
    @Test("a parent sees the operation's progress advance, one step at a time")
    func parentSeesSteps() async {
        let seen = EventLog()
        let onTheQueue = Flag()
        let lock = NSLock()
        let parent = Progress(totalUnitCount: 1)
        // Each step records what the parent saw when it began: the steps before it, done.
        let operation = ReportingOperation(steps: 4, progressLock: lock) { _ in
            seen.record("\(lock.withLock { parent.fractionCompleted })")
            if OperationQueue.current != nil { onTheQueue.raise() }
        }
        lock.withLock { parent.addChild(operation.progress, withPendingUnitCount: 1) }
        guard await OperationQueue().runs(operation, within: 5) else {
            Issue.record(
                "the operation never finished: main() calls finish() after its loop (hint: \"Cancelling the progress\")"
            )
            return
        }
        #expect(
            seen.events == ["0.0", "0.25", "0.5", "0.75"],
            """
            when each of the 4 steps began, the parent saw \(seen.events): each step should begin with the earlier \
            ones, and only those, counted. Set progress.completedUnitCount once a step's work is done (hint: "Count \
            each step")
            """)
        let fraction = lock.withLock { parent.fractionCompleted }
        #expect(
            fraction == 1,
            "after the last step, the parent said \(fraction), not 1 (hint: \"Count each step\")")
        #expect(
            !onTheQueue.isRaised,
            """
            the steps ran on the queue's thread, inside main(): the work runs on a thread of its own \
            (DispatchQueue.global().async), and main() returns at once (hint: "Count each step")
            """)
    }

    @Test("a step is counted under the tree's lock: while the test holds it, the count waits")
    func countsUnderTheLock() async {
        let lock = WatchedLock()
        let firstStepRunning = Flag()
        let firstStepMayEnd = DispatchSemaphore(value: 0)
        let somethingHappened = Flag()
        let secondStepBegan = Flag()
        let operation = ReportingOperation(steps: 2, progressLock: lock) { step in
            if step == 1 {
                firstStepRunning.raise()
                _ = firstStepMayEnd.wait(timeout: .now() + 5 * boundStretch)  // the work's own thread
            } else {
                secondStepBegan.raise()
                somethingHappened.raise()
            }
        }
        lock.askedWhileHeld = somethingHappened
        operation.completionBlock = { somethingHappened.raise() }
        OperationQueue().addOperation(operation)
        guard await firstStepRunning.wait(seconds: 5) else {
            firstStepMayEnd.signal()
            Issue.record("the queue started the operation, and its first step never ran (hint: \"Count each step\")")
            return
        }
        guard await lock.holdOnAnotherThread() else {
            firstStepMayEnd.signal()
            Issue.record(
                "while the first step ran, the test could not take the progress lock for 5 s: something holds it (hint: \"Count each step\")"
            )
            return
        }
        // The first step ends while the test holds the lock: the count must wait for it. Which
        // comes first: the work asks for the lock, or it goes on (the second step, or the end)?
        firstStepMayEnd.signal()
        let moved = await somethingHappened.wait(seconds: 5)
        let asked = lock.askedByAnother.isRaised
        lock.releaseFromAnotherThread()
        guard moved else {
            Issue.record(
                """
                the first step ended while the test held the progress lock, and for 5 s the operation neither asked \
                for the lock nor went on to the second step (hint: "Count each step")
                """)
            return
        }
        #expect(
            asked,
            """
            the first step's work ended while the test held the progress lock, and the operation \
            \(secondStepBegan.isRaised ? "began its second step" : "finished") without asking for that lock: it \
            counted the step outside it. Count each step under progressLock, which also guards the parent (hint: \
            "Count each step")
            """)
    }

    @Test("the parent cancelled under the tree's lock just after the last step, as the child leaves it: one result")
    func parentCancelledAsTheChildFinishes() async {
        // The last step's work returns; at once the parent's owner cancels the parent, under the
        // lock, while the finished child removes itself from the parent's children. Only the
        // lock orders the two: without it, on Linux, the process may crash ("_SetStorage
        // deallocated with non-zero retain count").
        let lock = NSLock()
        let parent = Progress(totalUnitCount: 1)
        let lastStepRan = Flag()
        let operation = ReportingOperation(steps: 1, progressLock: lock) { _ in lastStepRan.raise() }
        lock.withLock { parent.addChild(operation.progress, withPendingUnitCount: 1) }
        let queue = OperationQueue()
        queue.addOperation(operation)
        guard await lastStepRan.wait(seconds: 5) else {
            Issue.record("the queue started the operation, and its one step never ran (hint: \"Count each step\")")
            return
        }
        guard await blockingCall(within: 5, { lock.withLock { parent.cancel() } }) else {
            Issue.record(
                """
                the parent's cancel, under the progress lock, waited 5 s for it: the operation held it (hint: "Count \
                each step")
                """)
            return
        }
        guard await queueLearnsFinished(operation, within: 5) else {
            Issue.record(
                "the operation never finished: main() calls finish() after its loop (hint: \"Cancelling the progress\")"
            )
            return
        }
        let fraction = lock.withLock { parent.fractionCompleted }
        #expect(
            fraction == 1,
            """
            the one step ran before the parent was cancelled, and the parent then said \(fraction), not 1: a step \
            whose work ran is counted, whatever comes after (hint: "Count each step")
            """)
    }

    @Test("two children of one parent count their steps at the same time: the parent ends complete")
    func siblingsCountAtOnce() async {
        // No gate holds them (a work that blocks holds one of Dispatch's few threads, and the
        // other child would wait for a new one): the queue starts both, and their loops run side
        // by side as far as the machine lets them.
        let lock = NSLock()
        let parent = Progress(totalUnitCount: 2)
        let operations = (0..<2).map { _ in ReportingOperation(steps: 500, progressLock: lock) { _ in } }
        lock.withLock { for operation in operations { parent.addChild(operation.progress, withPendingUnitCount: 1) } }
        guard await OperationQueue().runs(operations, within: 5) else {
            Issue.record(
                "the operations never finished: main() calls finish() after its loop (hint: \"Cancelling the progress\")"
            )
            return
        }
        let fraction = lock.withLock { parent.fractionCompleted }
        #expect(
            fraction == 1,
            """
            two children of one parent counted their 500 steps each at the same time, and the parent ended at \
            \(fraction), not 1: a count lost while the other child counted. Count under progressLock, which every \
            child of the tree shares (hint: "Count each step")
            """)
    }

    @Test("cancelling the parent progress cancels the operation; no step runs after it")
    func parentCancelCancels() async {
        let steps = EventLog()
        let firstStepStarted = Flag()
        let go = DispatchSemaphore(value: 0)
        let lock = NSLock()
        let parent = Progress(totalUnitCount: 1)
        let operation = ReportingOperation(steps: 3, progressLock: lock) { step in
            steps.record("\(step)")
            firstStepStarted.raise()
            if step == 1 { _ = go.wait(timeout: .now() + 5 * boundStretch) }  // the operation's own thread
        }
        lock.withLock { parent.addChild(operation.progress, withPendingUnitCount: 1) }
        let queue = OperationQueue()
        queue.addOperation(operation)
        guard await firstStepStarted.wait(seconds: 5) else {
            go.signal()
            Issue.record("the queue started the operation, and its first step never ran (hint: \"Count each step\")")
            return
        }
        guard await blockingCall(within: 5, { lock.withLock { parent.cancel() } }) else {
            go.signal()
            Issue.record(
                "the parent's cancel, under the progress lock, waited 5 s for it: the operation held it (hint: \"Count each step\")"
            )
            return
        }
        // Foundation may call the cancellation handler later, on another thread: look for a while.
        let cancelled = await Self.until(seconds: 5) { operation.isCancelled }
        go.signal()
        guard cancelled else {
            Issue.record(
                """
                the parent was cancelled during step 1, and 5 s later the operation was still not cancelled: give \
                progress a cancellationHandler that cancels it (hint: "Cancelling the progress")
                """)
            return
        }
        guard await queueLearnsFinished(operation, within: 5) else {
            Issue.record(
                """
                cancelled during step 1, the operation never finished: main() still calls finish() when it stops \
                early (break, not return) (hint: "Cancelling the progress")
                """)
            return
        }
        #expect(
            steps.events == ["1"],
            "cancelled during step 1 of 3, the operation ran steps \(steps.events): none after the cancel (hint: \"Cancelling the progress\")"
        )
        let fraction = lock.withLock { parent.fractionCompleted }
        #expect(
            abs(fraction - 1.0 / 3) < 0.001,
            """
            cancelled during step 1 of 3, the operation made its parent say \(Int((fraction * 100).rounded()))% done: \
            the parent counts the steps whose work ran — here one of three. A cancelled operation does not complete \
            the steps it skipped (hint: "Count each step")
            """)
    }

    @Test("a parent cancelled before the operation starts cancels it at once: no step ever runs")
    func parentCancelledBeforeStart() async {
        let steps = EventLog()
        let lock = NSLock()
        let parent = Progress(totalUnitCount: 1)
        let operation = ReportingOperation(steps: 3, progressLock: lock) { step in steps.record("\(step)") }
        lock.withLock {
            parent.addChild(operation.progress, withPendingUnitCount: 1)
            parent.cancel()
        }
        // Foundation may call the cancellation handler later, on another thread: look for a while.
        guard await Self.until(seconds: 5, { operation.isCancelled }) else {
            Issue.record(
                """
                the parent was cancelled before the operation started, and 5 s later the operation was still not \
                cancelled: its queue would start it. Install the cancellation handler in init, not in main() (hint: \
                "Cancelling the progress")
                """)
            return
        }
        guard await OperationQueue().runs(operation, within: 5) else {
            Issue.record(
                "the cancelled operation never finished once its queue started it (hint: \"Cancelling the progress\")")
            return
        }
        #expect(
            steps.events.isEmpty,
            "cancelled before it started, the operation ran steps \(steps.events) (hint: \"Cancelling the progress\")")
    }

    @Test("an operation that has finished is freed, while its parent progress lives on")
    func freedWhileTheParentLives() async {
        let lock = NSLock()
        let parent = Progress(totalUnitCount: 1)
        weak var weakOperation: ReportingOperation?
        do {
            let operation = ReportingOperation(steps: 2, progressLock: lock) { _ in }
            weakOperation = operation
            lock.withLock { parent.addChild(operation.progress, withPendingUnitCount: 1) }
            #expect(
                await OperationQueue().runs(operation, within: 5),
                "the operation never finished (hint: \"Who holds whom\")")
        }
        let freed = await Self.until(seconds: 5) { weakOperation == nil }  // the queue lets go on its own thread
        #expect(
            freed,
            """
            the finished operation was still there 5 s after its queue finished it, while its parent progress lived \
            on: the progress (which the parent keeps) holds the cancellation handler, and the handler holds the \
            operation. Capture self weakly: [weak self] (hint: "Who holds whom")
            """)
        withExtendedLifetime(parent) {}
    }

    #if os(macOS) || os(Linux)
        @Test("an operation that a queue cancelled before it ran is gone; cancelling its parent then does nothing")
        func parentCancelledAfterTheOperationIsGone() async {
            // In a process of its own: a handler that reaches a freed operation crashes.
            let message = """
                a process of the test's own cancelled the parent progress of an operation already freed, and did \
                not exit normally: a cancellation handler that reaches the freed operation (unowned self) ends it so. \
                Capture self weakly: [weak self] (hint: "Who holds whom")
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
        let lock = NSLock()
        let parent = Progress(totalUnitCount: 1)
        do {
            let operation = ReportingOperation(steps: 3, progressLock: lock) { _ in }
            lock.withLock { parent.addChild(operation.progress, withPendingUnitCount: 1) }
            let finished = DispatchSemaphore(value: 0)
            operation.completionBlock = { finished.signal() }
            operation.cancel()
            OperationQueue().addOperation(operation)
            _ = finished.wait(timeout: .now() + 5)
        }
        Thread.sleep(forTimeInterval: 0.2)  // the queue lets go of the operation on its own thread
        lock.withLock { parent.cancel() }
        Thread.sleep(forTimeInterval: 0.3)  // the handler may run on another thread
        exit(EXIT_SUCCESS)
    }

    /// True once `condition` holds, false if `seconds` (times `boundStretch`) pass first.
    static func until(seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds * boundStretch)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}

/// The tree's lock (an NSLock inside), watched: the test can hold it from a thread of its own, and learns when
/// another thread asks for it meanwhile.
private final class WatchedLock: NSObject, NSLocking, @unchecked Sendable {
    // @unchecked Sendable: an NSLock, which is thread-safe; the rest is Locked, or thread-safe flags.
    private static let holderMark = "exercise9.holder"
    private let inner = NSLock()
    private let state = Locked<(held: Bool, notify: Flag?)>((false, nil))
    private let release = DispatchSemaphore(value: 0)
    /// Raised when a thread other than the test's holder asks for the lock while it is held.
    let askedByAnother = Flag()

    /// Also raised when another thread asks for the lock while the test holds it.
    var askedWhileHeld: Flag? {
        get { state.withLock { $0.notify } }
        set { state.withLock { $0.notify = newValue } }
    }

    func lock() {
        if !ThreadMark.isSet(Self.holderMark) {
            let (held, notify) = state.withLock { ($0.held, $0.notify) }
            if held {
                askedByAnother.raise()
                notify?.raise()
            }
        }
        inner.lock()
    }

    func unlock() {
        inner.unlock()
    }

    /// Takes the lock on a thread of its own, which holds it until `releaseFromAnotherThread()`.
    /// True once it holds it; false if it could not take it within 5 s.
    func holdOnAnotherThread() async -> Bool {
        let holds = Flag()
        Thread { [self] in
            ThreadMark.set(Self.holderMark)
            lock()
            state.withLock { $0.held = true }
            holds.raise()
            release.wait()
            state.withLock { $0.held = false }
            unlock()
        }.start()
        return await holds.wait(seconds: 5)
    }

    /// Lets the holding thread unlock.
    func releaseFromAnotherThread() {
        release.signal()
    }
}
