import Foundation

extension ContractClause {
    /// Many at once on a wide queue lose and double nothing: each finishes once, its completion
    /// block runs once, the queue drains.
    ///
    /// 210 operations on a wide queue, all executing at once; then all their work ends
    /// together — by one call, by two calls at once, or racing a `cancel()`, from threads of
    /// the kit's own. Work that waits for something of the operation's own before it starts (a
    /// limit of a few requests at a time) ends as soon as it starts. Each must finish exactly
    /// once, with one completion block, and the queue must drain. A state changed in two steps,
    /// where a finish can land between them, fails here. Chapter 3.
    public static let manyAtOnce = ContractClause(
        "manyAtOnce", "Many at once on a wide queue lose and double nothing", chapter: 3
    ) { $0.manyAtOnce($1) }
}

extension Checker {
    func manyAtOnce(_ run: ClauseRun) {
        guard run.needs(.workStarts, in: self), run.needs(.finishIsAnnounced, in: self),
            run.needs(.startReturns, in: self)
        else { return }
        let count = 210
        let queue = OperationQueue()  // as wide as Foundation makes it
        let subjects = (0..<count).map { _ in subject(run, ending: .held) }
        let watches = subjects.map(\.watch)
        run.doing("adding them to a wide queue")
        guard Bounded.returns(within: patience, { for watch in watches { watch.attach() } }),
            enqueue(subjects, on: queue)
        else {
            return stuckAll(
                subjects, queue, .gettersAnswer,
                "adding them to a queue had not returned \(formatted(patience)) s later",
                run)
        }
        // Every operation executing (and every work that does not wait started), as long as
        // more keep starting: then all of them end at once.
        let operations = subjects.map(\.operation)
        run.doing("waiting for all of them to execute at once")
        var executing = 0
        var progress = (executing: -1, started: -1)
        var lastProgress = Date()
        let began = Date()
        while true {
            let started = subjects.filter { $0.work.startedAt != nil }.count
            guard let states = Bounded.value(within: patience, { operations.map(StateSample.init) }) else {
                return stuckAll(subjects, queue, .gettersAnswer, "reading their states did not return", run)
            }
            executing = states.filter(\.isExecuting).count
            let early = states.indices.filter { states[$0].isFinished && subjects[$0].work.endedAt == nil }.count
            if early > 0 {
                return stuckAll(
                    subjects, queue, .runsUntilItsWorkEnds,
                    "\(early) of \(count) operations said they were finished while their work still ran", run)
            }
            if executing == count && started == count { break }
            if (executing, started) != progress {
                progress = (executing, started)
                lastProgress = Date()
            }
            let stalled = Date().timeIntervalSince(lastProgress) > patience
            if (executing == count && stalled) || run.isOver { break }
            // No more for the patience, or new ones only as fast as Dispatch adds threads to
            // operations that hold theirs (about one a second): no correct class is that slow.
            if stalled || Date().timeIntervalSince(began) > 4 * patience {
                return stuckAll(
                    subjects, queue,
                    "only \(executing) of \(count) operations on a wide queue were executing at once \(formatted(Date().timeIntervalSince(began))) s after they were added, \(started) of their works had started, and none more had for \(formatted(Date().timeIntervalSince(lastProgress))) s",
                    run)
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        let started = subjects.filter { $0.work.startedAt != nil }.count
        if started < count {
            run.note(
                "\(count - started) of their works had not started when the others ended (each waited for something of the operation's own): they ended as they started"
            )
        }
        run.doing("ending their work together")
        let works = subjects.map(\.work)
        guard Bounded.returns(within: patience * 2, { self.endTogether(works, cancelling: operations) }) else {
            return stuckAll(
                subjects, queue,
                "ending their work, or cancelling them, from threads of the kit's own: a call had not returned \(formatted(patience * 2)) s later",
                run)
        }
        for work in works { work.release() }  // a work that starts now ends at once
        run.doing("waiting for all of them to finish")
        let unfinished = unfinished(subjects, run)
        if unfinished > 0 {
            return stuckAll(
                subjects, queue,
                "\(unfinished) of \(count) operations had not finished once their work had ended (their queue never learned it), and none more had for \(formatted(patience)) s",
                run)
        }
        _ = run.until(patience) { Bounded.value(within: patience) { queue.operationCount == 0 } ?? false }
        run.pause(settle)
        let doubled = subjects.filter { $0.watch.completions.value != 1 }.count
        if doubled > 0 {
            run.fail("\(doubled) of \(count) operations ran their completion block more than once, or never")
        }
        let dependentsTwice = subjects.filter { $0.watch.dependentRuns.value != 1 }.count
        if dependentsTwice > 0 { run.fail("\(dependentsTwice) of \(count) operations started a dependent twice") }
        let twice = subjects.filter { $0.work.starts > 1 }.count
        if twice > 0 { run.fail("\(twice) of \(count) operations ran their work more than once") }
        if let states = Bounded.value(within: patience, { operations.map(StateSample.init) }) {
            let wrong = states.filter { !$0.isFinished || $0.isExecuting }
            if let first = wrong.first {
                run.fail(
                    "\(wrong.count) of \(count) operations did not end finished and not executing (one said \(first))")
            }
        } else {
            run.fail("reading their states did not return")
        }
        if let left = Bounded.value(within: patience, { queue.operationCount }), left > 0 {
            run.fail("their queue still held \(left) of them after all had finished")
        }
        for subject in subjects { subject.watch.detach() }
    }

    /// Ends every started work at the same moment, from six threads of the kit's own.
    ///
    /// A third by one call, a third by two calls at once (from two threads), a third racing a `cancel()`
    /// of its operation. A work that has not started ends as it starts.
    ///
    /// Returns once every call has returned. Synchronous: it waits for them.
    private func endTogether(_ works: [ContractWork], cancelling operations: [Operation]) {
        let threads = 6
        // Taken before the threads start: a work ends once, whoever calls its `done`.
        let endings = works.indices.map { $0 % 3 == 1 ? works[$0].takeEndingForTwoCalls() : nil }
        let go = Signal()
        let finished = Locked(0)
        let allFinished = Signal()
        for thread in 0..<threads {
            onKitThread("OperationContract.end") {
                _ = go.waitBlocking(seconds: 60)
                for (index, work) in works.enumerated() {
                    let mine = index % threads == thread
                    let partner = index % threads == (thread + 3) % threads
                    guard mine || partner else { continue }
                    switch index % 3 {
                    case 0: if mine { work.end() }
                    case 1: endings[index]?()  // both threads call it
                    default: if mine { work.end() } else { operations[index].cancel() }
                    }
                }
                let count = finished.withLock {
                    $0 += 1
                    return $0
                }
                if count == threads { allFinished.raise() }
            }
        }
        go.raise()
        _ = allFinished.waitBlocking(seconds: 3600)
    }
}

extension ContractWork {
    /// `takeEnding()` for work that started: the `done` to call twice.
    ///
    /// Nil for work that has not started, or runs in a task (which this lets return).
    func takeEndingForTwoCalls() -> (@Sendable () -> Void)? {
        guard starts > 0 else { return nil }
        return takeEnding()
    }
}
