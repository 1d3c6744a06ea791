import Foundation

extension ContractClause {
    /// Cancelling a running operation tells its work to stop, and whoever learns that it
    /// finished sees it cancelled.
    ///
    /// `cancel()` while the work runs. The work must be told to stop — ``ContractWork/stop()``
    /// called, or the task running ``ContractWork/run()`` cancelled — and the work then ends
    /// inside that call, the hardest order: whoever learns that the operation finished must see
    /// it cancelled. A `cancel()` that stops the work before it records the cancellation fails
    /// here. Work started with ``ContractWork/start(then:)`` is stopped only if your factory
    /// wires the operation's cancellation to ``ContractWork/stop()``: if nothing ever calls it,
    /// the clause says "not checked", and checks the rest by ending the work. Chapter 3.
    public static let cancelStopsTheWork = ContractClause(
        "cancelStopsTheWork", "Cancelling tells its work to stop, and it ends cancelled", chapter: 3
    ) { $0.cancelStopsTheWork($1) }
}

extension Checker {
    func cancelStopsTheWork(_ run: ClauseRun) {
        // Work that ends as soon as it is told to stop, inside that call: the hardest order
        // for an operation that stops its work before it records the cancellation.
        guard run.needs(.finishIsAnnounced, in: self) else { return }
        let subject = subject(run, ending: .whenStopped)
        guard self.run(subject, on: OperationQueue(), run) else { return }
        guard untilExecuting(subject, run) != nil else {
            return stuck(subject, .gettersAnswer, "while its work ran, its getters did not answer", run)
        }
        guard stillRunning(subject, run) else { return }
        run.doing("cancelling it while its work runs")
        guard cancel(subject) else {
            return stuck(subject, "cancel() had not returned \(formatted(patience)) s later, while its work ran", run)
        }
        let waited = waitForStop
        if !run.wait(subject.work.stopped, waited) {
            stopsNoWork.withLock { $0 = true }
            if subject.work.ranAsync {
                run.fail(
                    "cancel() had not cancelled the task that runs its work \(formatted(waited)) s later: the work was never told to stop"
                )
            } else {
                run.cannotCheck(
                    "nothing called the work's stop() within \(formatted(waited)) s of cancel(): if the operation stops its work when cancelled, wire its cancellation to ContractWork.stop() in the factory (the kit cannot tell a class that cannot stop its work from one whose cancel() forgets to)"
                )
            }
            guard end(subject, run) else { return }
        }
        run.doing("waiting for its queue to learn that it finished")
        guard run.wait(subject.watch.learned, patience) else {
            return stuck(
                subject,
                "its work ended inside the call that told it to stop, and \(formatted(patience)) s later its queue had not learned that it finished; \(says(subject))",
                run)
        }
        if let announced = subject.watch.atAnnouncement, !announced.isCancelled {
            run.broken(
                .cancelRecordedFirst,
                "at the moment it announced \"isFinished\" — its work having ended inside the call that told it to stop — it said \(announced)",
                in: self)
        }
        expectFinished(subject, run)
        subject.watch.detach()
    }
}
