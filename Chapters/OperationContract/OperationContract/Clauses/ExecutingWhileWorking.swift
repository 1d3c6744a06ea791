import Foundation

extension ContractClause {
    /// Executing while its work runs: from before the work starts until after it ends, and
    /// not once it has finished.
    ///
    /// The kit holds the work. When the work starts, the operation must already say it is
    /// executing (a `start()` that sets the state after `main()` fails here); while the work
    /// runs, executing and not finished (an operation that finishes when `main()` returns
    /// fails here); when it announces "isFinished", no longer executing (a `finish()` that sets
    /// `isFinished` before it clears `isExecuting` fails here). Chapter 2.
    ///
    /// Its work never starting, and a finish while its work still runs, are reported here; the
    /// clauses that need them say "not checked".
    public static let executingWhileWorking = ContractClause(
        "executingWhileWorking", "Executing while its work runs, and only then", chapter: 2
    ) { $0.executingWhileWorking($1) }
}

extension Checker {
    func executingWhileWorking(_ run: ClauseRun) {
        let subject = subject(run, ending: .held, sampleWhenWorkStarts: true)
        guard self.run(subject, on: OperationQueue(), run) else { return }
        _ = run.wait(subject.sampled, patience + 1)
        switch subject.atWorkStart {
        case .some(.some(let state)) where !state.isExecuting || state.isFinished:
            run.fail(
                "when its work started (read from another thread as start(then:) or run() was called), it said \(state)"
            )
        case .some(.none):
            run.cannotCheck(
                "its getters did not answer while its work started (read from another thread for \(formatted(patience)) s as start(then:) or run() was called): whether it said it was executing then was not seen"
            )
        default:
            break
        }
        // The work is held: the operation must say executing, and not finished, until it ends.
        run.doing("reading its state while its work runs")
        guard let running = untilExecuting(subject, run) else {
            return stuck(subject, .gettersAnswer, "while its work ran, its getters did not answer", run)
        }
        run.pause(holdingTime)
        let stillRunning = state(of: subject) ?? running
        if let finished = [running, stillRunning].first(where: \.isFinished) {
            let learned = subject.watch.learned.isRaised ? " (its queue learned it too: a dependent started)" : ""
            run.broken(
                .runsUntilItsWorkEnds,
                "while its work still ran (the kit held it \(formatted(holdingTime)) s after the operation said it was executing), it said \(finished)\(learned)",
                in: self)
            let work = subject.work
            _ = Bounded.returns(within: patience) { work.end() }
            return subject.watch.detach()
        }
        if let idle = [running, stillRunning].first(where: { !$0.isExecuting }) {
            run.fail("while its work still ran, it said \(idle)")
        }
        if subject.watch.learned.isRaised {
            run.broken(
                .runsUntilItsWorkEnds,
                "its queue learned that it finished while its work still ran: a dependent started",
                in: self)
            return subject.watch.detach()
        }
        guard end(subject, run) else { return }
        if let announced = subject.watch.atAnnouncement, announced.isExecuting {
            run.broken(
                .notExecutingOnceFinished, "at the moment it announced \"isFinished\", it said \(announced)", in: self)
        } else {
            expectFinished(subject, run)
        }
        subject.watch.detach()
    }
}
