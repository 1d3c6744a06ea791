import Foundation

extension ContractClause {
    /// Cancelled before it starts, it finishes when its queue starts it, without running its
    /// work and without ever executing.
    ///
    /// `cancel()` before the operation is queued; then it is queued. It must not be finished by
    /// the `cancel()` itself (Foundation traps on adding a finished operation to a queue), and
    /// once its queue starts it, it must finish without running its work and without ever
    /// saying it is executing — checked where Foundation reads it: on Linux, the kit stops the
    /// operation at the moment Foundation reads its getters; on a Mac, key-value observers hear
    /// every announcement. Chapter 3.
    ///
    /// A cancelled operation that never finishes is reported here; the clauses that need one
    /// say "not checked".
    public static let cancelledBeforeStart = ContractClause(
        "cancelledBeforeStart", "Cancelled before it starts, it finishes without running its work", chapter: 3
    ) { $0.cancelledBeforeStart($1) }
}

extension Checker {
    func cancelledBeforeStart(_ run: ClauseRun) {
        // Work that ends at once: if the operation runs it anyway, it still finishes.
        let subject = subject(run, ending: .atOnce)
        guard attach(subject, run, holdable: true) else { return }
        run.doing("cancelling it before it is queued")
        guard cancel(subject) else {
            return stuck(subject, "cancel() had not returned \(formatted(patience)) s later", run)
        }
        guard let cancelled = state(of: subject) else {
            return stuck(subject, .gettersAnswer, "after cancel(), its getters did not answer", run)
        }
        if cancelled.isFinished {
            run.fail(
                "cancel(), before any queue had started it, left it saying \(cancelled): Foundation traps when a finished operation is added to a queue, so it cannot be queued"
            )
            return subject.watch.detach()
        }
        let queue = StartingQueue()
        guard enqueue([subject], on: queue) else {
            return stuck(
                subject, .gettersAnswer, "addOperation(_:) had not returned \(formatted(patience)) s later", run)
        }
        run.doing("letting its queue start it")
        let seen = watchExecuting(subject, run) { began in start(queue, signalling: began) }
        guard run.wait(subject.watch.learned, patience) else {
            return stuck(
                subject, .cancelledFinishes,
                "cancelled, then queued, it had not finished \(formatted(patience)) s after its queue was free to start it (no dependent started); \(says(subject))",
                run)
        }
        if subject.work.starts > 0 {
            run.broken(
                .cancelledStaysIdle, "its work ran, though it was cancelled before its queue started it", in: self)
        } else if case .said(let state) = seen {
            run.broken(.cancelledStaysIdle, "as its queue started it, cancelled, it said \(state)", in: self)
        } else if let announced = subject.watch.atAnnouncement, announced.isExecuting {
            run.fail("at the moment it announced \"isFinished\", it said \(announced)")
        }
        expectFinished(subject, run)
        expectOneCompletion(subject, run)
        subject.watch.detach()
    }
}
