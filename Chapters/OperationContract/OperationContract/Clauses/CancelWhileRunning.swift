import Foundation

extension ContractClause {
    /// Cancelled while its work runs, it stays executing until the work has ended, and then
    /// finishes.
    ///
    /// `cancel()` while the kit holds the work. The operation must stay executing, and not
    /// finished, until the work has ended: a serial queue starts its next operation, and
    /// dependents run, as soon as it says it finished. Chapter 3.
    public static let cancelWhileRunning = ContractClause(
        "cancelWhileRunning", "Cancelled while its work runs, it stays executing until the work has ended", chapter: 3
    ) { $0.cancelWhileRunning($1) }
}

extension Checker {
    func cancelWhileRunning(_ run: ClauseRun) {
        let subject = subject(run, ending: .held)
        guard self.run(subject, on: OperationQueue(), run) else { return }
        guard untilExecuting(subject, run) != nil else {
            return stuck(subject, .gettersAnswer, "while its work ran, its getters did not answer", run)
        }
        guard stillRunning(subject, run) else { return }
        run.doing("cancelling it while its work runs")
        guard cancel(subject) else {
            return stuck(subject, "cancel() had not returned \(formatted(patience)) s later, while its work ran", run)
        }
        let rightAfter = state(of: subject)
        run.pause(holdingTime)
        let later = state(of: subject)
        guard let rightAfter, let later else {
            return stuck(subject, .gettersAnswer, "after cancel(), its getters did not answer", run)
        }
        if let wrong = [rightAfter, later].first(where: { $0.isFinished || !$0.isExecuting }) {
            let learned =
                subject.watch.learned.isRaised ? ", and its queue learned that it finished (a dependent started)" : ""
            run.fail("cancelled while its work still ran, it said \(wrong)\(learned)")
        } else if subject.watch.learned.isRaised {
            run.fail("cancelled while its work still ran, its queue learned that it finished: a dependent started")
        }
        guard end(subject, run) else { return }
        expectFinished(subject, run)
        if let state = state(of: subject), !state.isCancelled {
            run.fail("once finished, it said isCancelled = false")
        }
        subject.watch.detach()
    }
}
