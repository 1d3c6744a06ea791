import Dispatch
import Foundation

extension ContractClause {
    /// A second finish changes nothing: the work reporting its end twice, one after the other
    /// or from two threads at once, finishes it once.
    ///
    /// The work reports its end twice: one call after the other, then two at once from two
    /// threads. The completion block runs once, the dependent once, and the state stays
    /// finished; on a Mac, key-value observers must hear "isFinished" once. Chapter 4.
    public static let secondFinishChangesNothing = ContractClause(
        "secondFinishChangesNothing", "A second finish changes nothing", chapter: 4
    ) { $0.secondFinishChangesNothing($1) }
}

extension Checker {
    func secondFinishChangesNothing(_ run: ClauseRun) {
        guard run.needs(.finishIsAnnounced, in: self) else { return }
        for twoAtOnce in [false, true] {
            let subject = subject(run, ending: .held)
            guard self.run(subject, on: OperationQueue(), run) else { return }
            guard untilExecuting(subject, run) != nil else {
                return stuck(subject, .gettersAnswer, "while its work ran, its getters did not answer", run)
            }
            guard let done = subject.work.takeEnding() else {
                run.cannotCheck("its work runs in a task (run()), which returns once: it cannot end twice")
                // takeEnding() let run() return: the operation finishes as usual.
                _ = run.wait(subject.watch.learned, patience)
                return subject.watch.detach()
            }
            let calls =
                twoAtOnce
                ? "its work reported its end from two threads at once"
                : "its work reported its end a second time, after it had finished"
            run.doing(calls)
            if twoAtOnce {
                guard
                    Bounded.returns(
                        within: patience, { DispatchQueue.concurrentPerform(iterations: 2) { _ in done() } })
                else {
                    return stuck(
                        subject,
                        "\(calls), and a call had not returned \(formatted(patience)) s later; \(says(subject))",
                        run)
                }
            } else {
                guard Bounded.returns(within: patience, { done() }) else {
                    return stuck(
                        subject, .finishIsAnnounced,
                        "its work ended, and the call that reported it had not returned \(formatted(patience)) s later; \(says(subject))",
                        run)
                }
                guard run.wait(subject.watch.learned, patience) else {
                    return stuck(
                        subject, .finishIsAnnounced,
                        "its work ended, and \(formatted(patience)) s later its queue had not learned that it finished; \(says(subject))",
                        run)
                }
                guard Bounded.returns(within: patience, { done() }) else {
                    return stuck(
                        subject,
                        "\(calls), and that call had not returned \(formatted(patience)) s later; \(says(subject))",
                        run)
                }
            }
            guard run.wait(subject.watch.learned, patience) else {
                return stuck(
                    subject,
                    "\(calls), and \(formatted(patience)) s later its queue had not learned that it finished; \(says(subject))",
                    run)
            }
            run.pause(settle)
            let completions = subject.watch.completions.value
            if completions != 1 { run.fail("\(calls): its completion block ran \(completions) times") }
            let dependents = subject.watch.dependentRuns.value
            if dependents != 1 { run.fail("\(calls): its dependent ran \(dependents) times") }
            if let state = state(of: subject), !state.isFinished || state.isExecuting {
                run.fail("\(calls): afterwards it said \(state)")
            }
            if let notifications = subject.watch.finishedNotifications, notifications > 1 {
                run.fail("\(calls): key-value observers heard \"isFinished\" announced \(notifications) times")
            }
            subject.watch.detach()
        }
        #if !canImport(ObjectiveC)
            run.note(
                "on Linux a repeated \"isFinished\" announcement cannot be seen from outside the class (Foundation ignores it): on a Mac, key-value observers hear it, and this clause counts them"
            )
        #endif
    }
}
