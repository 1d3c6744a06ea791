import Foundation

extension ContractClause {
    /// One result on every path: there when the finish is announced, a failure when the
    /// operation was cancelled, and never changed afterwards — by a late `cancel()` or a
    /// second report of the work.
    ///
    /// For operations that end with a `Result`, when you tell the kit how to read it
    /// (``checkContract(clauses:patience:result:_:)``). Five paths: finished (then a late
    /// `cancel()` and a second report of the work, which must change nothing); cancelled before
    /// it starts; cancelled while its work runs, the work answering from another thread once told
    /// to stop; cancelled while its work runs, the work answering with a success inside the call
    /// that told it to stop — after the cancel was recorded, before the operation finished; and
    /// a work that answered, with a cancel that comes before the operation has finished. On
    /// every path the result must be there when the finish is announced, and agree with
    /// `isCancelled`. Chapter 6.
    public static let resultOnEveryPath = ContractClause(
        "resultOnEveryPath", "One result on every path, agreeing with isCancelled, never changed once finished",
        chapter: 6
    ) { $0.resultOnEveryPath($1) }
}

/// A result, as the kit compares it: success or failure, and what it said.
enum ResultShape: Sendable, Equatable, CustomStringConvertible {
    case success(String)
    case failure(String)

    init<Success, Failure>(_ result: Result<Success, Failure>) {
        switch result {
        case .success(let value): self = .success(String(describing: value))
        case .failure(let error): self = .failure(String(describing: error))
        }
    }

    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }

    var description: String {
        switch self {
        case .success(let value): "success(\(value))"
        case .failure(let error): "failure(\(error))"
        }
    }
}

extension Checker {
    func resultOnEveryPath(_ run: ClauseRun) {
        guard let readResult else {
            return run.cannotCheck(
                "no way to read the result was given: pass checkContract(result:) the key path of the result")
        }
        guard run.needs(.finishIsAnnounced, in: self) else { return }
        guard finishedPath(readResult, run) else { return }
        if run.needs(.cancelledFinishes, in: self) { cancelledBeforeStartPath(run) }
        guard run.needs(.runsUntilItsWorkEnds, in: self) else { return }
        if run.needs(.cancelRecordedFirst, in: self) {
            stopPaths(readResult, run)
        }
        cancelAfterTheAnswerPath(readResult, run)
    }

    /// The paths where the work answers once a cancel tells it to stop.
    private func stopPaths(_ readResult: @escaping @Sendable (Operation) -> ResultShape?, _ run: ClauseRun) {
        cancelledWhileRunningPath(
            .soonAfterStopped,
            "cancelled while its work ran, its work answering from another thread just after it was told to stop",
            readResult, run)
        cancelledWhileRunningPath(
            .whenStopped,
            "cancelled while its work ran, its work answering with a success inside the call that told it to stop (the cancel recorded, the operation not yet finished)",
            readResult, run)
    }

    private func finishedPath(_ readResult: @escaping @Sendable (Operation) -> ResultShape?, _ run: ClauseRun) -> Bool {
        let subject = subject(run, ending: .held)
        guard self.run(subject, on: OperationQueue(), run) else { return false }
        guard untilExecuting(subject, run) != nil else {
            stuck(subject, .gettersAnswer, "while its work ran, its getters did not answer", run)
            return false
        }
        let done = subject.work.takeEnding()  // nil for work in a task: it returns now
        if let done, !Bounded.returns(within: patience, { done() }) {
            stuck(subject, .finishIsAnnounced, "its work ended, and the call that reported it had not returned", run)
            return false
        }
        guard run.wait(subject.watch.learned, patience) else {
            stuck(subject, .finishIsAnnounced, "its work ended, and its queue never learned that it finished", run)
            return false
        }
        guard case .some(.some(let announced)) = subject.watch.resultAtAnnouncement else {
            run.fail("at the moment it announced \"isFinished\", its work having ended, it had no result")
            subject.watch.detach()
            return true
        }
        if announced.isFailure {
            run.note("finished without a cancel, its result was \(announced)")
        }
        // A cancel() once it has finished, and a second report of its work: neither may change it.
        guard cancel(subject) else {
            stuck(subject, "cancel() had not returned \(formatted(patience)) s later, after it had finished", run)
            return false
        }
        let operation = subject.operation
        if let (result, cancelled) = Bounded.value(within: patience, { (readResult(operation), operation.isCancelled) })
        {
            if result != announced {
                run.fail(
                    "a cancel() after it had finished changed its result from \(announced) to \(result.map(\.description) ?? "nil")"
                )
            }
            if cancelled {
                run.fail("a cancel() after it had finished made it say isCancelled = true, beside its \(announced)")
            }
        }
        if let done {
            guard Bounded.returns(within: patience, { done() }) else {
                stuck(subject, "a second report of its work had not returned \(formatted(patience)) s later", run)
                return false
            }
            if let result = Bounded.value(within: patience, { readResult(operation) }), result != announced {
                run.fail(
                    "a second report of its work changed its result from \(announced) to \(result.map(\.description) ?? "nil")"
                )
            }
        }
        subject.watch.detach()
        return true
    }

    private func cancelledBeforeStartPath(_ run: ClauseRun) {
        let subject = subject(run, ending: .atOnce)
        guard attach(subject, run) else { return }
        guard cancel(subject) else {
            return stuck(subject, "cancel() had not returned \(formatted(patience)) s later", run)
        }
        guard enqueue([subject], on: OperationQueue()) else {
            return stuck(
                subject, .gettersAnswer, "addOperation(_:) had not returned \(formatted(patience)) s later", run)
        }
        guard run.wait(subject.watch.learned, patience) else {
            return stuck(
                subject, .cancelledFinishes,
                "cancelled before it started, it had not finished \(formatted(patience)) s later",
                run)
        }
        switch subject.watch.resultAtAnnouncement {
        case .some(.some(let result)) where !result.isFailure:
            run.fail("cancelled before it started, it announced \"isFinished\" with \(result)")
        case .some(.none), .none:
            run.fail("cancelled before it started, at the moment it announced \"isFinished\" it had no result")
        default:
            break
        }
        subject.watch.detach()
    }

    /// Cancelled while its work runs, the work answering as `ending` says once it is told to
    /// stop (or, if nothing tells it, when the kit ends it).
    private func cancelledWhileRunningPath(
        _ ending: ContractWork.Ending, _ path: String, _ readResult: @escaping @Sendable (Operation) -> ResultShape?,
        _ run: ClauseRun
    ) {
        let subject = subject(run, ending: ending)
        guard self.run(subject, on: OperationQueue(), run) else { return }
        guard untilExecuting(subject, run) != nil else {
            return stuck(subject, .gettersAnswer, "while its work ran, its getters did not answer", run)
        }
        guard cancel(subject) else {
            return stuck(subject, "cancel() had not returned \(formatted(patience)) s later, while its work ran", run)
        }
        if !run.wait(subject.work.stopped, waitForStop) {
            stopsNoWork.withLock { $0 = true }
            let work = subject.work
            _ = Bounded.returns(within: patience) { work.end() }  // never told to stop: it answers now
        }
        guard run.wait(subject.watch.learned, patience) else {
            return stuck(
                subject, "\(path): \(formatted(patience)) s later its queue had not learned that it finished", run)
        }
        expectAgreement(subject, path, readResult, run)
    }

    /// The work answers; if the operation has not finished when that call returns, a cancel
    /// comes at once: between the answer and the finish.
    private func cancelAfterTheAnswerPath(
        _ readResult: @escaping @Sendable (Operation) -> ResultShape?, _ run: ClauseRun
    ) {
        let subject = subject(run, ending: .held)
        guard self.run(subject, on: OperationQueue(), run) else { return }
        guard untilExecuting(subject, run) != nil else {
            return stuck(subject, .gettersAnswer, "while its work ran, its getters did not answer", run)
        }
        let operation = subject.operation
        let work = subject.work
        let watch = subject.watch
        let cancelled = Locked(false)
        guard
            Bounded.returns(
                within: patience,
                {
                    work.end()
                    if !watch.learned.isRaised && !operation.isFinished {
                        operation.cancel()
                        cancelled.withLock { $0 = true }
                    }
                })
        else {
            return stuck(
                subject,
                "its work answered, and that call (or the cancel() after it) had not returned \(formatted(patience)) s later",
                run)
        }
        guard run.wait(subject.watch.learned, patience) else {
            return stuck(
                subject,
                "its work answered, and \(formatted(patience)) s later its queue had not learned that it finished",
                run)
        }
        guard cancelled.current else {
            run.note("it had finished by the time its work's answer returned: no cancel could come between them")
            return subject.watch.detach()
        }
        expectAgreement(subject, "its work answered, and a cancel came before it had finished", readResult, run)
    }

    /// Checks that the result announced, the result now and `isCancelled` agree.
    private func expectAgreement(
        _ subject: Subject, _ path: String, _ readResult: @escaping @Sendable (Operation) -> ResultShape?,
        _ run: ClauseRun
    ) {
        run.pause(settle)
        let operation = subject.operation
        guard
            let (result, cancelled) = Bounded.value(
                within: patience, { (readResult(operation), operation.isCancelled) })
        else {
            return stuck(subject, "\(path): reading its result had not returned \(formatted(patience)) s later", run)
        }
        let ended = result.map(\.description) ?? "no result"
        if cancelled && result?.isFailure != true {
            run.fail("\(path): it ended with \(ended), and says isCancelled = true")
        } else if !cancelled && result?.isFailure == true {
            run.fail("\(path): it ended with \(ended), and says isCancelled = false")
        }
        switch subject.watch.resultAtAnnouncement {
        case .some(.some(let announced)) where announced != result:
            run.fail("\(path): it announced \"isFinished\" with \(announced), and later said \(ended)")
        case .some(.none):
            run.fail("\(path): at the moment it announced \"isFinished\" it had no result (later: \(ended))")
        default:
            break
        }
        subject.watch.detach()
    }
}
