import Foundation

extension ContractClause {
    /// Its finish is announced: a dependent starts after it, `waitUntilFinished()` returns, the
    /// completion block runs once, the queue lets it go.
    ///
    /// A thread waits in `waitUntilFinished()` while the work runs; then the work ends. A
    /// dependent must start, the waiter must return, the completion block must run once and
    /// the queue must let go of the operation. A finish that sets the flag without announcing
    /// "isFinished" fails here. Chapter 2.
    ///
    /// A queue that never learns of the finish is reported here; the clauses that need it say
    /// "not checked".
    public static let finishIsAnnounced = ContractClause(
        "finishIsAnnounced", "Its finish is announced to dependents, waiters and the completion block", chapter: 2
    ) { $0.finishIsAnnounced($1) }
}

extension Checker {
    func finishIsAnnounced(_ run: ClauseRun) {
        let subject = subject(run, ending: .held)
        let queue = OperationQueue()
        guard self.run(subject, on: queue, run) else { return }
        guard untilExecuting(subject, run) != nil else {
            return stuck(subject, .gettersAnswer, "while its work ran, its getters did not answer", run)
        }
        // A caller already waiting when the operation finishes: it must be woken, not only
        // a caller that looks afterwards.
        let waiterReturned = waiter(for: subject)
        run.pause(settle)
        guard end(subject, run) else { return }
        run.doing("waiting for waitUntilFinished() to return")
        if !run.wait(waiterReturned, patience) {
            run.fail(
                "waitUntilFinished(), called on a thread of the kit's while its work ran, had not returned \(formatted(patience)) s after its queue learned that it finished; \(says(subject))"
            )
        }
        expectOneCompletion(subject, run)
        run.doing("waiting for its queue to let it go")
        let drained = run.until(patience) { Bounded.value(within: patience) { queue.operationCount == 0 } ?? false }
        if !drained {
            run.fail("its queue still held it \(formatted(patience)) s after it finished (operationCount > 0)")
        }
        subject.watch.detach()
    }
}
