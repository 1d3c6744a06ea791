import Foundation

extension ContractClause {
    /// Dependencies hold under load: in chains of operations on a wide queue, no operation's
    /// work starts before the work of the one it depends on has ended.
    ///
    /// Twelve chains of six operations, on a queue of width six, added last to first, their
    /// work ending at once or a few milliseconds later on other threads. No operation's work
    /// may start before the work of the one it depends on has ended. Chapter 2.
    public static let dependenciesUnderLoad = ContractClause(
        "dependenciesUnderLoad", "Dependencies hold under load", chapter: 2
    ) { $0.dependenciesUnderLoad($1) }
}

extension Checker {
    func dependenciesUnderLoad(_ run: ClauseRun) {
        guard run.needs(.workStarts, in: self), run.needs(.finishIsAnnounced, in: self),
            run.needs(.runsUntilItsWorkEnds, in: self), run.needs(.endsInsideStart, in: self)
        else { return }
        let chains = 12
        let length = 6
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 6
        let links: [[Subject]] = (0..<chains).map { chain in
            (0..<length).map { link in subject(run, ending: (chain + link) % 3 == 0 ? .atOnce : .soon) }
        }
        let all = links.flatMap { $0 }
        let pairs = links.flatMap { chain in zip(chain, chain.dropFirst()).map { ($0.operation, $1.operation) } }
        let watches = all.map(\.watch)
        run.doing("making the chains and adding them to the queue")
        guard
            Bounded.returns(
                within: patience,
                {
                    for (dependency, dependent) in pairs { dependent.addDependency(dependency) }
                    for watch in watches { watch.attach() }
                })
        else {
            return stuckAll(
                all, queue, .gettersAnswer,
                "making them depend on each other had not returned \(formatted(patience)) s later",
                run)
        }
        guard enqueue(all.reversed(), on: queue) else {
            return stuckAll(
                all, queue, .gettersAnswer, "addOperation(_:) had not returned \(formatted(patience)) s later", run)
        }
        run.doing("waiting for the chains to finish")
        let unfinished = unfinished(all, run)
        if unfinished > 0, all.contains(where: { $0.work.endedAt != nil && !$0.work.startReturned.isRaised }) {
            return stuckAll(
                all, queue, .endsInsideStart,
                "\(unfinished) of \(all.count) operations in chains of \(length) had not finished, and none more had for \(formatted(patience)) s; in some, work that ended inside start(then:) never returned from it",
                run)
        }
        guard unfinished == 0 else {
            return stuckAll(
                all, queue,
                "\(unfinished) of \(all.count) operations in chains of \(length) had not finished, and none more had for \(formatted(patience)) s",
                run)
        }
        var early = 0
        var example: String?
        for chain in links {
            for (index, (dependency, dependent)) in zip(chain, chain.dropFirst()).enumerated() {
                guard let started = dependent.work.startedAt else { continue }
                if let ended = dependency.work.endedAt, ended < started { continue }
                early += 1
                example =
                    example
                    ?? "operation \(index + 2) of a chain started its work before operation \(index + 1)'s work had ended"
            }
        }
        if let example {
            run.broken(
                .dependenciesHold,
                "in \(early) of \(chains * (length - 1)) dependencies, the dependent's work started before the work it depends on had ended (\(example))",
                in: self)
        }
        let twice = all.filter { $0.work.starts > 1 }.count
        if twice > 0 { run.fail("\(twice) operations ran their work more than once") }
        for subject in all { subject.watch.detach() }
    }

    /// How many of `subjects` the queue never learned finished: the wait goes on as long as
    /// one more finishes within the patience.
    func unfinished(_ subjects: [Subject], _ run: ClauseRun) -> Int {
        var finished = 0
        var lastProgress = Date()
        while true {
            let now = subjects.filter { $0.watch.learned.isRaised }.count
            if now == subjects.count { return 0 }
            if now > finished {
                finished = now
                lastProgress = Date()
            }
            if Date().timeIntervalSince(lastProgress) > patience || run.isOver { return subjects.count - now }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    /// Notes that `premise` does not hold, and keeps every subject (and their queue) for good.
    func stuckAll(
        _ subjects: [Subject], _ queue: OperationQueue, _ premise: Premise, _ observation: String, _ run: ClauseRun
    ) {
        run.broken(premise, observation, in: self)
        for subject in subjects { subject.watch.quarantine() }
        Quarantine.keep([queue])
    }

    /// Notes a failure after which every subject (and their queue) is kept for good.
    func stuckAll(_ subjects: [Subject], _ queue: OperationQueue, _ failure: String, _ run: ClauseRun) {
        run.fail(failure)
        for subject in subjects { subject.watch.quarantine() }
        Quarantine.keep([queue])
    }
}
