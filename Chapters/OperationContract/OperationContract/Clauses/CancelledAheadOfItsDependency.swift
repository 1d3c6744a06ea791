import Foundation

extension ContractClause {
    /// Cancelled while a dependency still runs, it finishes without its work — at once, as
    /// Foundation's own operations do, or once the dependency ends — and the dependency's end
    /// changes nothing.
    ///
    /// The operation depends on an operation of the kit's that is still running; it is queued,
    /// then cancelled. Foundation makes a cancelled operation ready at once, whatever its
    /// dependencies: its queue starts it, and it must finish without running its work. An
    /// operation whose `isReady` waits for its dependencies anyway must finish once the
    /// dependency ends. Then the dependency ends: the completion block has run once, the
    /// dependent once, and it is still finished. (The kit keeps the operation until its
    /// dependency has finished: Foundation follows a pointer to it then, and crashes if it was
    /// freed — its own bug, with a `BlockOperation` too.) Chapter 3.
    public static let cancelledAheadOfItsDependency = ContractClause(
        "cancelledAheadOfItsDependency", "Cancelled while a dependency still runs, it finishes without its work",
        chapter: 3
    ) { $0.cancelledAheadOfItsDependency($1) }
}

extension Checker {
    func cancelledAheadOfItsDependency(_ run: ClauseRun) {
        guard run.needs(.cancelledFinishes, in: self) else { return }
        let dependency = HeldOperation()
        let dependencyQueue = OperationQueue()
        dependencyQueue.addOperation(dependency)
        guard dependency.started.waitBlocking(seconds: patience) else {
            Quarantine.keep([dependency, dependencyQueue])
            return run.cannotCheck("the kit's own dependency never started (\(formatted(patience)) s)")
        }
        let subject = subject(run, ending: .atOnce)
        let operation = subject.operation
        run.doing("making it depend on a running operation")
        guard Bounded.returns(within: patience, { operation.addDependency(dependency) }) else {
            dependency.finish()
            return stuck(
                subject, .gettersAnswer, "addDependency(_:) had not returned \(formatted(patience)) s later", run)
        }
        guard attach(subject, run) else { return dependency.finish() }
        let queue = StartingQueue()
        guard enqueue([subject], on: queue) else {
            dependency.finish()
            return stuck(
                subject, .gettersAnswer, "addOperation(_:) had not returned \(formatted(patience)) s later", run)
        }
        queue.isSuspended = false  // it waits for its dependency
        run.pause(settle)
        if subject.work.starts > 0 || subject.watch.learned.isRaised {
            let what = subject.work.starts > 0 ? "its work had started" : "its queue had learned that it finished"
            run.broken(.dependenciesHold, "before it was cancelled, its dependency still running, \(what)", in: self)
            dependency.finish()
            return subject.watch.quarantine(with: [dependency, dependencyQueue])
        }
        run.doing("cancelling it while its dependency runs")
        // Its queue cannot start it while the cancel runs: whatever finishes it then is cancel().
        queue.serial.suspend()
        guard cancel(subject) else {
            queue.serial.resume()
            dependency.finish()
            return stuck(subject, "cancel() had not returned \(formatted(patience)) s later", run)
        }
        let afterCancel = state(of: subject)
        queue.serial.resume()
        if let afterCancel, afterCancel.isFinished {
            run.broken(
                .cancelLeavesWaitingUnfinished,
                "cancel(), while it waited in its queue for its dependency, left it saying \(afterCancel) before its queue could start it",
                in: self)
            dependency.finish()
            return subject.watch.quarantine(with: [queue, dependency, dependencyQueue])
        }
        let atOnce = run.wait(subject.watch.learned, patience)
        if !atOnce {
            run.note(
                "it had not finished \(formatted(patience)) s after cancel(), its dependency still running: Foundation's own operations finish at once then"
            )
        }
        run.doing("ending its dependency")
        dependency.finish()
        guard dependency.finished.waitBlocking(seconds: patience) else {
            Quarantine.keep([dependency, dependencyQueue])
            return stuck(subject, "the kit's own dependency did not finish", run)
        }
        if !atOnce {
            guard run.wait(subject.watch.learned, patience) else {
                return stuck(
                    subject,
                    "cancelled while its dependency still ran, it had not finished \(formatted(patience)) s after cancel(), nor \(formatted(patience)) s after its dependency finished (no dependent started); \(says(subject))",
                    run)
            }
            run.note("it finished once its dependency had finished")
        }
        if subject.work.starts > 0 {
            run.broken(.cancelledStaysIdle, "it ran its work, though it was cancelled before it started", in: self)
        }
        run.pause(settle)
        let context = "once its dependency had finished too, "
        expectFinished(subject, run, "once its dependency had finished too")
        if subject.watch.completions.value != 1 {
            run.fail("\(context)its completion block had run \(subject.watch.completions.value) times")
        }
        if subject.watch.dependentRuns.value != 1 {
            run.fail("\(context)its dependent had run \(subject.watch.dependentRuns.value) times")
        }
        subject.watch.detach()
    }
}

/// An operation of the kit's own that runs until the kit finishes it: a dependency that keeps
/// the contract, whatever the checked class does.
final class HeldOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: `state` is only touched under `lock`; the signals are Sendable.
    private let lock = NSLock()
    private var state = (executing: false, finishing: false, finished: false)
    let started = Signal()
    let finished = Signal()

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { state.executing } }
    override var isFinished: Bool { lock.withLock { state.finished } }

    override func start() {
        willChangeValue(forKey: "isExecuting")
        lock.withLock { state.executing = true }
        didChangeValue(forKey: "isExecuting")
        started.raise()
    }

    /// Finishes it, once, from any thread.
    func finish() {
        let claimed = lock.withLock {
            guard state.executing, !state.finishing else { return false }
            state.finishing = true
            return true
        }
        guard claimed else { return }
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        lock.withLock { (state.executing, state.finished) = (false, true) }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
        finished.raise()
    }
}
