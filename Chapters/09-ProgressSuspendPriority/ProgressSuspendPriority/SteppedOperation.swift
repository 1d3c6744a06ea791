import AsyncOperations
import Dispatch
import Foundation

/// An asynchronous operation with progress of its own: `ProgressReporting`.
///
/// Its work has `steps` steps; each waits for its turn at a `Turnstile`, so the caller decides
/// when it advances. Its `progress` counts the steps, and works both ways:
/// - `progress.cancel()` cancels the operation (the cancellation handler calls `cancel()`),
///   and `cancel()` cancels the progress;
/// - `progress.pause()` makes the work stop at its next safe point (between two steps) until
///   `progress.resume()`, however long that takes. Nothing else pauses a running operation: a
///   suspended queue does not.
///
/// Add `progress` as a child of a parent `Progress` to see several operations as one (and on
/// Linux, cancel, pause or resume that parent inside ``withProgressLock(_:)``). A
/// cancel while paused ends the pause: the work stops at once. With `steps: 0` the work has
/// nothing to do: its progress counts one unit, completed as soon as the work runs, so that a
/// parent sees it done (a total of 0 units would stay at 0% for ever); fewer steps than 0 trap
/// at `init`.
///
/// Open, so that a subclass can watch it (the chapter's pictures do).
open class SteppedOperation: AsyncOperation, ProgressReporting, @unchecked Sendable {
    // @unchecked Sendable: the base class guards its state; this subclass adds constants, a
    // semaphore, a condition, and `progress`. On Linux `Progress` takes no lock of its own:
    // every change that updates a parent or walks children — a count, a `cancel()` — happens
    // under `progressUpdates`, here and in the callers of `withProgressLock`. The work reads the
    // flags `isPaused` and `isCancelled` without it: each is one stored value.
    public let progress: Progress
    private let steps: Int64
    private let label: String
    private let turnstile: Turnstile
    private let report: @Sendable (String) -> Void
    /// Wakes a paused work to look again: `resume()` or `cancel()` was called.
    private let pauseMayEnd = NSCondition()
    private let cancelCalled = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - label: the name the operation reports with.
    ///   - steps: how many steps its work has.
    ///   - turnstile: where each step waits for its turn.
    ///   - report: what the operation says when it pauses, resumes or stops.
    public init(
        _ label: String, steps: Int, turnstile: Turnstile, report: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        precondition(steps >= 0, "SteppedOperation \(label): steps must not be negative, not \(steps)")
        self.label = label
        self.steps = Int64(steps)
        self.progress = Progress(totalUnitCount: max(Int64(steps), 1))
        self.turnstile = turnstile
        self.report = report
        super.init()
        progress.isCancellable = true
        progress.isPausable = true
        // [weak self]: the operation holds its progress, and the progress these handlers.
        progress.cancellationHandler = { [weak self] in self?.cancel() }
        // Foundation calls it for every resume(), paused or not: it only wakes the work, which
        // looks at `isPaused` itself, so a stray call leaves nothing behind.
        progress.resumingHandler = { [pauseMayEnd] in pauseMayEnd.withLock { pauseMayEnd.broadcast() } }
        onCancel { [progress, cancelCalled, pauseMayEnd] in
            progressUpdates.withLock { progress.cancel() }  // and the other way round
            pauseMayEnd.withLock { pauseMayEnd.broadcast() }  // a paused work sees the cancel
            cancelCalled.signal()
        }
    }

    /// Waits until `cancel()` has been called, for example by the progress's cancellation
    /// handler, which Foundation may call on another thread, later. False after `seconds`.
    /// A blocking wait: for synchronous code.
    public func waitUntilCancelled(seconds: Double = 10) -> Bool {
        guard cancelCalled.wait(timeout: .now() + seconds) == .success else { return false }
        cancelCalled.signal()  // for the next caller
        return true
    }

    public override func main() {
        // A thread of its own: the work blocks between steps, and must not hold one of the
        // threads Dispatch shares with everything else in the process.
        Thread { self.work() }.start()
    }

    private func work() {
        if steps == 0 {
            progressUpdates.withLock { progress.completedUnitCount = 1 }  // nothing to do: done
            return finish()
        }
        for step in stride(from: Int64(1), through: steps, by: 1) {
            guard turnstile.awaitTurn() else {
                report("\(label): nobody let step \(step) through; giving up")
                return finish()
            }
            // A safe point: between two steps, nothing is half done.
            if isCancelled {
                report("\(label): cancelled, stops before step \(step)")
                finish()
                return turnstile.acknowledge()
            }
            if progress.isPaused {
                report("\(label): paused before step \(step)")
                turnstile.acknowledge()
                waitWhilePaused()
                if isCancelled {
                    report("\(label): cancelled while paused, stops before step \(step)")
                    return finish()
                }
                report("\(label): resumed")
            }
            progressUpdates.withLock { progress.completedUnitCount = step }  // the step's work
            turnstile.acknowledge()
        }
        finish()
    }

    /// Blocks the work's thread until `progress` is resumed or the operation cancelled, however
    /// long that takes. It looks at `isPaused` and `isCancelled` under the condition's lock,
    /// which the handlers take to wake it, so no wake-up falls between a look and the wait.
    private func waitWhilePaused() {
        pauseMayEnd.withLock {
            while progress.isPaused, !isCancelled {
                // Apple does not document whether `isPaused` reads false before the resuming
                // handler runs (Linux: yes); if not, the next look, a second later, sees it.
                _ = pauseMayEnd.wait(until: Date(timeIntervalSinceNow: 1))
            }
        }
    }
}

extension SteppedOperation {
    /// Runs `body` under the lock every `SteppedOperation` changes its progress under: cancel,
    /// pause or resume a parent of their progress here, and add children to a parent whose
    /// children run.
    ///
    /// On Linux `Progress` takes no lock. A child that completes removes itself from its parent's
    /// children, under this lock; the parent's `cancel()`, `pause()` and `resume()` walk those
    /// children. The two at once, on two threads, crash the process.
    public static func withProgressLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        try progressUpdates.withLock(body)
    }
}

/// Linux's `Progress` takes no lock: setting a child's `completedUnitCount` also updates its
/// parent, so two children of one parent, advanced from two threads at once, can lose an
/// update (the parent ends at a wrong fraction), and a parent that walks its children while one
/// removes itself crashes. Every `SteppedOperation` changes its progress under this one lock.
/// Recursive: should a `Progress` call a cancellation handler on the cancelling thread (Apple
/// documents no thread), the operation's own `cancel()` takes it again.
private let progressUpdates = NSRecursiveLock()
