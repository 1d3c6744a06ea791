import Foundation

extension ContractClause {
    /// Started by hand, in no queue, it behaves as in a queue: `start()` returns while its work
    /// runs, work that ends inside `start()` leaves it finished when `start()` returns, and
    /// cancelled first it finishes without its work.
    ///
    /// The kit calls `start()` itself, on a thread of its own, three times: with work it holds
    /// (`start()` must return while the work runs, the operation executing; an operation whose
    /// `start()` waits for its work, as a synchronous operation does, holds its queue's thread
    /// for as long, and fails here), with work that ends inside `start(then:)` (the operation
    /// must be finished when `start()` returns), and after `cancel()` (it must finish without
    /// its work, and never say it is executing). Chapter 3.
    ///
    /// A `start()` that holds its thread is reported here; ``manyAtOnce``, which needs threads
    /// that come back, then says "not checked".
    public static let startedByHand = ContractClause(
        "startedByHand", "Started by hand, in no queue, start() returns and it finishes as in a queue", chapter: 3
    ) { $0.startedByHand($1) }
}

extension Checker {
    func startedByHand(_ run: ClauseRun) {
        guard run.needs(.workStarts, in: self), run.needs(.finishIsAnnounced, in: self) else { return }
        guard startedByHandWhileWorking(run) else { return }
        if run.needs(.endsInsideStart, in: self) {
            guard startedByHandEndingAtOnce(run) else { return }
        }
        cancelledThenStartedByHand(run)
    }

    /// Calls `start()` on a thread of the kit's own; the signal is raised when it returns.
    private func startByHand(_ subject: Subject, marking began: StartMark? = nil) -> (
        returned: Signal, moment: Locked<Int?>
    ) {
        let returned = Signal()
        let moment = Locked<Int?>(nil)
        let operation = subject.operation
        onKitThread("OperationContract.start") {
            began?.raise()
            operation.start()
            moment.withLock { $0 = Moment.next() }
            returned.raise()
        }
        return (returned, moment)
    }

    private func startedByHandWhileWorking(_ run: ClauseRun) -> Bool {
        let subject = subject(run, ending: .held)
        guard attach(subject, run) else { return false }
        run.doing("calling start() by hand, its work held")
        let (returned, _) = startByHand(subject)
        guard run.wait(subject.work.started, patience) else {
            let start = returned.isRaised ? "start() had returned" : "start() had not returned"
            stuck(
                subject,
                "started by hand (start() called on a thread of the kit's, in no queue), its work had not started \(formatted(patience)) s later; \(start); \(says(subject))",
                run)
            return false
        }
        guard run.wait(returned, patience) else {
            let operation = subject.operation
            let asynchronous = Bounded.value(within: patience) { operation.isAsynchronous }
            let says = asynchronous.map { " (it says isAsynchronous = \($0))" } ?? ""
            run.broken(
                .startReturns,
                "started by hand, start() had not returned \(formatted(patience)) s after its work started, while its work was still running\(says): it holds the thread that calls it until its work ends",
                in: self)
            let work = subject.work
            _ = Bounded.returns(within: patience) { work.end() }
            if !run.wait(returned, patience) { subject.watch.quarantine() }
            return false
        }
        guard let state = state(of: subject) else {
            stuck(subject, .gettersAnswer, "when start() had returned, its getters did not answer", run)
            return false
        }
        if state.isFinished {
            run.broken(
                .runsUntilItsWorkEnds,
                "started by hand, when start() had returned with its work still running, it said \(state)", in: self)
            let work = subject.work
            _ = Bounded.returns(within: patience) { work.end() }
            return false
        } else if !state.isExecuting {
            run.fail("started by hand, when start() had returned with its work still running, it said \(state)")
        }
        guard end(subject, run) else { return false }
        expectFinished(subject, run, "started by hand, after its work ended")
        subject.watch.detach()
        return true
    }

    private func startedByHandEndingAtOnce(_ run: ClauseRun) -> Bool {
        let subject = subject(run, ending: .atOnce)
        guard attach(subject, run) else { return false }
        run.doing("calling start() by hand, its work ending at once")
        let (returned, moment) = startByHand(subject)
        guard run.wait(returned, patience) else {
            let endedInside = subject.work.endedAt != nil
            let ended = endedInside ? "its work had ended inside start(then:)" : "its work had not ended"
            stuck(
                subject, endedInside ? .endsInsideStart : .startReturns,
                "started by hand, start() had not returned \(formatted(patience)) s later; \(ended); \(says(subject))",
                run)
            return false
        }
        let work = subject.work
        if !work.ranAsync, let ended = work.endedAt, let returnedAt = moment.current, ended < returnedAt {
            // The work ended inside start(): the operation must be finished when it returns.
            if let state = settled(subject), !state.isFinished || state.isExecuting {
                run.broken(
                    .endsInsideStart,
                    "started by hand, its work ending inside start(then:), it said \(state) once start() had returned",
                    in: self)
                subject.watch.quarantine()
                return false
            }
        }
        guard run.wait(subject.watch.learned, patience) else {
            stuck(
                subject,
                "started by hand, its work ending at once, \(formatted(patience)) s after start() returned no dependent had started; \(says(subject))",
                run)
            return false
        }
        expectOneCompletion(subject, run, "started by hand, its work ending at once: ")
        subject.watch.detach()
        return true
    }

    private func cancelledThenStartedByHand(_ run: ClauseRun) {
        let subject = subject(run, ending: .atOnce)
        guard attach(subject, run, holdable: true) else { return }
        run.doing("calling cancel(), then start() by hand")
        guard cancel(subject) else {
            return stuck(subject, "cancel() had not returned \(formatted(patience)) s later", run)
        }
        guard let cancelled = state(of: subject) else {
            return stuck(subject, .gettersAnswer, "after cancel(), its getters did not answer", run)
        }
        if cancelled.isFinished {
            // Foundation's own start() does nothing then; nothing more to see.
            return run.note("cancel() marked it finished before start() was called (cancelledBeforeStart checks that)")
        }
        var started: (returned: Signal, moment: Locked<Int?>)?
        let seen = watchExecuting(subject, run) { began in started = startByHand(subject, marking: began) }
        guard let started, run.wait(started.returned, patience) else {
            return stuck(
                subject, "cancelled, then started by hand, start() had not returned \(formatted(patience)) s later", run
            )
        }
        if subject.work.starts > 0 {
            run.broken(.cancelledStaysIdle, "cancelled, then started by hand, it ran its work", in: self)
        } else if case .said(let state) = seen {
            run.broken(
                .cancelledStaysIdle, "cancelled, then started by hand, it said \(state) while it started", in: self)
        }
        guard run.wait(subject.watch.learned, patience) else {
            return stuck(
                subject,
                "cancelled, then started by hand, \(formatted(patience)) s after start() returned no dependent had started; \(says(subject))",
                run)
        }
        expectFinished(subject, run, "cancelled, then started by hand")
        subject.watch.detach()
    }
}
