import Foundation

extension ContractClause {
    /// Cancelled while it waits in its queue, it stays unfinished until the queue starts it:
    /// `cancel()` never marks a waiting operation finished.
    ///
    /// `cancel()` while the operation waits in a suspended queue. It must still say it is not
    /// finished: a `cancel()` that finishes it makes Foundation print "went isFinished=YES
    /// without being started by the queue it is in", and on Linux the queue can later crash.
    /// Then the queue starts it, and it finishes without its work, never executing. Chapter 3.
    public static let cancelWhileWaiting = ContractClause(
        "cancelWhileWaiting", "Cancelled while it waits in its queue, it stays unfinished until the queue starts it",
        chapter: 3
    ) { $0.cancelWhileWaiting($1) }
}

extension Checker {
    func cancelWhileWaiting(_ run: ClauseRun) {
        let subject = subject(run, ending: .atOnce)
        guard attach(subject, run, holdable: true) else { return }
        let queue = StartingQueue()
        guard enqueue([subject], on: queue) else {
            return stuck(
                subject, .gettersAnswer, "addOperation(_:) had not returned \(formatted(patience)) s later", run)
        }
        run.doing("cancelling it while it waits in a suspended queue")
        guard cancel(subject) else {
            return stuck(subject, "cancel() had not returned \(formatted(patience)) s later", run)
        }
        guard let cancelled = state(of: subject) else {
            return stuck(subject, .gettersAnswer, "after cancel(), its getters did not answer", run)
        }
        if cancelled.isFinished {
            run.broken(
                .cancelLeavesWaitingUnfinished,
                "cancel(), while it waited in its suspended queue, left it saying \(cancelled): finished before its queue started it (on Linux, Foundation prints \"went isFinished=YES without being started by the queue it is in\")",
                in: self)
            // The queue stays suspended and is never freed, nor is the operation: Foundation's
            // bookkeeping of that queue now points at an operation it already let go of.
            return subject.watch.quarantine(with: [queue])
        }
        guard run.needs(.cancelledFinishes, in: self) else {
            queue.isSuspended = false
            return subject.watch.quarantine(with: [queue])
        }
        let seen = watchExecuting(subject, run) { began in start(queue, signalling: began) }
        guard run.wait(subject.watch.learned, patience) else {
            return stuck(
                subject, .cancelledFinishes,
                "cancelled in its queue, it had not finished \(formatted(patience)) s after its queue was free to start it; \(says(subject))",
                run)
        }
        if subject.work.starts > 0 {
            run.broken(
                .cancelledStaysIdle, "its work ran, though it was cancelled before its queue started it", in: self)
        } else if case .said(let state) = seen {
            run.broken(.cancelledStaysIdle, "as its queue started it, cancelled, it said \(state)", in: self)
        }
        expectFinished(subject, run)
        expectOneCompletion(subject, run)
        subject.watch.detach()
    }
}
