import Foundation

extension ContractClause {
    /// Work that ends at once — inside `main()`, before `start()` returns — finishes it, without
    /// a deadlock, and it stays finished.
    ///
    /// The work ends before `start()` returns: the closure given to `start(then:)` is called
    /// inside that call. The operation must finish, and stay finished. A `start()` that sets the
    /// state to executing after `main()` has run leaves it executing for ever; a lock held
    /// around `main()` that the finish takes too deadlocks. Chapter 4.
    public static let workEndingAtOnce = ContractClause(
        "workEndingAtOnce", "Work that ends at once, inside main(), finishes it without a deadlock", chapter: 4
    ) { $0.workEndingAtOnce($1) }
}

extension Checker {
    func workEndingAtOnce(_ run: ClauseRun) {
        guard run.needs(.finishIsAnnounced, in: self) else { return }
        let subject = subject(run, ending: .atOnce)
        guard self.run(subject, on: OperationQueue(), run) else { return }
        let work = subject.work
        if work.ranAsync {
            run.note("its work runs in a task: it ended as soon as the task ran it, after main() had returned")
        }
        run.doing("waiting for its queue to learn that it finished")
        guard run.wait(subject.watch.learned, patience) else {
            let returned =
                work.ranAsync || work.startReturned.isRaised
                ? "" : ", and start(then:) itself had not returned: the thread that started the work is stuck in it"
            return stuck(
                subject, .endsInsideStart,
                "its work ended inside start(then:), on the thread that started it\(returned); \(formatted(patience)) s later its queue had not learned that it finished; \(says(subject))",
                run)
        }
        run.pause(settle)
        guard let state = state(of: subject) else {
            return stuck(subject, "after its queue learned that it finished, its getters did not answer", run)
        }
        if !state.isFinished || state.isExecuting {
            let waiterReturned = waiter(for: subject)
            let waits =
                run.wait(waiterReturned, settle) ? "" : ", and waitUntilFinished(), called then, had not returned"
            return stuck(
                subject, .endsInsideStart,
                "its work ended inside start(then:); its queue learned that it finished, and \(formatted(settle)) s later it said \(state)\(waits)",
                run)
        }
        let waiterReturned = waiter(for: subject)
        if !run.wait(waiterReturned, patience) {
            run.fail(
                "waitUntilFinished() had not returned \(formatted(patience)) s after it was called, though it said it had finished"
            )
        }
        expectOneCompletion(subject, run)
        subject.watch.detach()
    }
}
