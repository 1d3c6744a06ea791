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
        let pairsApart = Locked(0)
        guard
            Bounded.returns(
                within: patience * 2,
                { pairsApart.withLock { $0 = self.endTogether(works, cancelling: operations) } })
        else {
            return stuckAll(
                subjects, queue,
                "ending their work, or cancelling them, from threads of the kit's own: a call had not returned \(formatted(patience * 2)) s later",
                run)
        }
        if pairsApart.current > 0 {
            run.note(
                "\(pairsApart.current) of the kit's pairs of threads went on apart, one of them more than \(formatted(patience)) s behind the other: fewer of their calls raced"
            )
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

    /// Ends every started work at the same moment, from three pairs of threads of the kit's own.
    ///
    /// A third by one call, a third by two calls at once (both threads of a pair), a third racing a
    /// `cancel()` of its operation (one thread of the pair ends the work, the other cancels). A work
    /// that has not started ends as it starts.
    ///
    /// Before each work that two threads touch, the pair meets: a thread the system runs late
    /// would otherwise find that its partner has made all its calls, and nothing would race.
    /// After the meeting, one of a cancel and its work's ending waits a little, a different gap
    /// each time (`raceGaps`, up to 300 µs), so that the finish lands at many points of the
    /// cancel, and the cancel at many points of the finish.
    ///
    /// Returns once every call has returned, with the number of pairs whose threads went on
    /// apart (one waited for the other longer than the patience). Synchronous: it waits for them.
    private func endTogether(_ works: [ContractWork], cancelling operations: [Operation]) -> Int {
        let pairs = 3
        // Taken before the threads start: a work ends once, whoever calls its `done`.
        let endings = works.indices.map { $0 % 3 == 1 ? works[$0].takeEndingForTwoCalls() : nil }
        let meetings = works.indices.map { _ in Meeting() }
        let go = Signal()
        let finished = Locked(0)
        let allFinished = Signal()
        let partnersGone = (0..<pairs).map { _ in Locked(false) }
        let patience = patience
        for pair in 0..<pairs {
            let partnerGone = partnersGone[pair]
            for side in 0..<2 {
                onKitThread("OperationContract.end") {
                    _ = go.waitBlocking(seconds: 60)
                    for index in works.indices where index / 3 % pairs == pair {
                        let round = index / (3 * pairs)
                        if index % 3 != 0 { meetings[index].meet(within: patience, unless: partnerGone) }
                        switch index % 3 {
                        case 0: if side == 0 { works[index].end() }
                        case 1: endings[index]?()  // both threads call it
                        default:
                            let gap = Self.raceGaps[round % Self.raceGaps.count]
                            // Sides take turns: each thread ends some works and cancels others.
                            if side == round % 2 {
                                spin(microseconds: gap)
                                works[index].end()
                            } else {
                                spin(microseconds: -gap)
                                operations[index].cancel()
                            }
                        }
                    }
                    let count = finished.withLock {
                        $0 += 1
                        return $0
                    }
                    if count == 2 * pairs { allFinished.raise() }
                }
            }
        }
        go.raise()
        _ = allFinished.waitBlocking(seconds: 3600)
        return partnersGone.filter(\.current).count
    }

    /// How long, in microseconds, the ending of a work waits after its cancel starts (negative:
    /// the cancel waits after the ending starts).
    ///
    /// A state changed in two steps is wrong only if the other call lands between them, and
    /// where that gap lies depends on the class; these spread the calls over 300 µs either way.
    static let raceGaps = [0, 2, -2, 10, -10, 40, -40, 120, -120, 300, -300, 0]
}

/// Where two threads wait for each other, so that what they do next happens at once.
private final class Meeting: Sendable {
    private let arrived = Locked(0)

    /// Returns once both threads have come here; waits at most `seconds`, and not at all once a
    /// partner has failed to come (`partnerGone`): a thread the class holds for good.
    ///
    /// For a millisecond it only yields its core, so that both go on within microseconds of each
    /// other; after that it sleeps between looks, so that a partner that is late keeps no core
    /// busy.
    func meet(within seconds: Double, unless partnerGone: Locked<Bool>) {
        arrived.withLock { $0 += 1 }
        let start = DispatchTime.now().uptimeNanoseconds
        while arrived.current < 2 {
            if partnerGone.current { return }
            let waited = DispatchTime.now().uptimeNanoseconds - start
            if Double(waited) > seconds * 1e9 {
                partnerGone.withLock { $0 = true }
                return
            }
            if waited < 1_000_000 { sched_yield() } else { usleep(100) }
        }
    }
}

/// Keeps the thread busy for `microseconds` (none if it is 0 or less): a pause too short for
/// the system to put the thread to sleep and wake it in time.
private func spin(microseconds: Int) {
    guard microseconds > 0 else { return }
    let until = DispatchTime.now().uptimeNanoseconds + UInt64(microseconds) * 1000
    while DispatchTime.now().uptimeNanoseconds < until {}
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
