import Foundation

extension ContractClause {
    /// Freed once finished: nothing it holds keeps it alive, whether it ran, was cancelled
    /// before it started or while it ran, or was dropped without ever running.
    ///
    /// One operation that ran, one cancelled before it started, one cancelled while its work
    /// ran, one never queued: once the kit lets go of them, weak references to them must
    /// become nil. A closure the operation keeps, which holds it, fails here. Chapter 3.
    public static let freedOnceFinished = ContractClause(
        "freedOnceFinished", "Freed once finished, or dropped without running", chapter: 3
    ) { $0.freedOnceFinished($1) }
}

extension Checker {
    func freedOnceFinished(_ run: ClauseRun) {
        let queue = OperationQueue()
        var paths: [(WeakReference<Operation>, Tally, String)] = []
        let dropped = WeakReference<Operation>()
        do {
            dropped.object = subject(run, ending: .held).operation
            if run.needs(.finishIsAnnounced, in: self) {
                let running = subject(run, ending: .soon)
                let finished = Tally()
                running.operation.completionBlock = { finished.add() }  // holds nothing but the tally
                paths.append((WeakReference(running.operation), finished, "an operation that ran and finished"))
                guard enqueue([running], on: queue) else {
                    return stuck(running, .gettersAnswer, "addOperation(_:) had not returned", run)
                }
            }
            if run.needs(.cancelledFinishes, in: self) {
                let cancelledFirst = subject(run, ending: .atOnce)
                let finished = Tally()
                cancelledFirst.operation.completionBlock = { finished.add() }
                paths.append(
                    (WeakReference(cancelledFirst.operation), finished, "an operation cancelled before it started"))
                guard cancel(cancelledFirst) else {
                    return stuck(cancelledFirst, "cancel() had not returned \(formatted(patience)) s later", run)
                }
                guard enqueue([cancelledFirst], on: queue) else {
                    return stuck(cancelledFirst, .gettersAnswer, "addOperation(_:) had not returned", run)
                }
            }
            if run.needs(.workStarts, in: self), run.needs(.finishIsAnnounced, in: self) {
                let cancelledRunning = subject(run, ending: .whenStopped)
                let finished = Tally()
                cancelledRunning.operation.completionBlock = { finished.add() }
                paths.append(
                    (WeakReference(cancelledRunning.operation), finished, "an operation cancelled while its work ran"))
                guard enqueue([cancelledRunning], on: queue) else {
                    return stuck(cancelledRunning, .gettersAnswer, "addOperation(_:) had not returned", run)
                }
                run.doing("waiting for its work to start")
                if run.wait(cancelledRunning.work.started, patience) {
                    guard cancel(cancelledRunning) else {
                        return stuck(cancelledRunning, "cancel() had not returned \(formatted(patience)) s later", run)
                    }
                    // Told to stop, the work ended; if nothing told it, it ends now.
                    if !run.wait(cancelledRunning.work.stopped, waitForStop) {
                        let work = cancelledRunning.work
                        _ = Bounded.returns(within: patience) { work.end() }
                    }
                } else {
                    run.cannotCheck("an operation queued to be cancelled while its work ran never started its work")
                    Quarantine.keep([cancelledRunning.operation])
                    paths.removeLast()
                }
            }
        }
        run.doing("waiting for them to finish")
        let deadline = Date(timeIntervalSinceNow: patience)
        var finishedPaths: [(WeakReference<Operation>, String)] = []
        for (reference, finished, what) in paths {
            guard run.wait(finished.first, max(0, deadline.timeIntervalSinceNow)) else {
                run.cannotCheck(
                    "\(what) had not finished (its completion block had not run) \(formatted(patience)) s later: whether it is freed cannot be seen"
                )
                if let operation = reference.object { Quarantine.keep([operation]) }
                continue
            }
            finishedPaths.append((reference, what))
        }
        finishedPaths.append((dropped, "an operation dropped without ever being queued"))
        // Foundation lets go of a finished operation on its own thread, a moment later.
        run.doing("waiting for them to be freed")
        _ = run.until(patience) { finishedPaths.allSatisfy { $0.0.object == nil } }
        for (reference, what) in finishedPaths where reference.object != nil {
            run.fail("\(what) was still alive \(formatted(patience)) s after the kit had let go of it")
        }
    }
}
