import Dispatch
import Foundation

// The clauses about many operations at once, and about lifetimes.

extension Checker {
    /// Chains of dependent operations on a wide queue, added in reverse order, their work
    /// ending at once or from other threads: no work starts before the work it depends on ended.
    func dependenciesUnderLoad(_ findings: inout Findings) async {
        let chains = 12
        let length = 6
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 6
        let links: [[Subject]] = (0..<chains).map { chain in
            (0..<length).map { link in subject(ending: (chain + link) % 3 == 0 ? .atOnce : .soon) }
        }
        for chain in links {
            for (dependency, dependent) in zip(chain, chain.dropFirst()) {
                dependent.operation.addDependency(dependency.operation)
            }
        }
        let all = links.flatMap { $0 }
        for subject in all { subject.watch.attach() }
        guard await enqueue(all.reversed(), on: queue) else {
            return stuckAll(all, queue, "addOperation(_:) did not return", &findings)
        }
        let unfinished = await unfinished(all, within: patience * 3)
        guard unfinished == 0 else {
            return stuckAll(
                all, queue, "\(unfinished) of \(all.count) operations in chains of \(length) never finished", &findings)
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
            findings.fail(
                "in \(early) of \(chains * (length - 1)) dependencies, the dependent's work started before the work it depends on had ended (\(example)): the dependency said it was finished too early"
            )
        }
        let twice = all.filter { $0.work.starts > 1 }.count
        if twice > 0 { findings.fail("\(twice) operations ran their work more than once") }
        for subject in all { subject.watch.detach() }
    }

    /// Many operations running at once on a wide queue, then all their work ending together:
    /// from another thread, twice from two threads at once, or racing a cancel.
    ///
    /// Each must finish exactly once.
    func manyAtOnce(_ findings: inout Findings) async {
        let count = 210
        let queue = OperationQueue()  // as wide as Foundation makes it
        let subjects = (0..<count).map { _ in subject(ending: .held) }
        for subject in subjects { subject.watch.attach() }
        guard await enqueue(subjects, on: queue) else {
            return stuckAll(subjects, queue, "addOperation(_:) did not return", &findings)
        }
        // Every work running, every operation executing: then all of them end at once.
        let operations = subjects.map(\.operation)
        let deadline = ContinuousClock.now + .seconds(patience * 2)
        var executing = 0
        while ContinuousClock.now < deadline {
            let started = subjects.filter { $0.work.startedAt != nil }.count
            guard let states = await value(within: patience, { operations.map(StateSample.init) }) else {
                return stuckAll(subjects, queue, "reading their states did not return", &findings)
            }
            executing = states.filter(\.isExecuting).count
            let early = states.indices.filter { states[$0].isFinished && subjects[$0].work.endedAt == nil }.count
            if early > 0 {
                return stuckAll(
                    subjects, queue,
                    "\(early) of \(count) operations said they were finished while their work still ran",
                    &findings)
            }
            if started == count && executing == count { break }
            await pause(0.005)
        }
        guard executing == count else {
            return stuckAll(
                subjects, queue, "only \(executing) of \(count) operations on a wide queue were ever executing at once",
                &findings)
        }
        let works = subjects.map(\.work)
        guard await returns(within: patience * 2, { endTogether(works, cancelling: operations) }) else {
            return stuckAll(
                subjects, queue, "ending their work, or cancelling them, never returned: a deadlock", &findings)
        }
        let unfinished = await unfinished(subjects, within: patience * 2)
        if unfinished > 0 {
            return stuckAll(
                subjects, queue,
                "\(unfinished) of \(count) operations never finished once their work had ended (their queue never learned it)",
                &findings)
        }
        _ = await drains(queue)
        await pause(settle)
        let doubled = subjects.filter { $0.watch.completions.value != 1 }.count
        if doubled > 0 {
            findings.fail("\(doubled) of \(count) operations ran their completion block more than once, or never")
        }
        let dependentsTwice = subjects.filter { $0.watch.dependentRuns.value != 1 }.count
        if dependentsTwice > 0 { findings.fail("\(dependentsTwice) of \(count) operations started a dependent twice") }
        let twice = subjects.filter { $0.work.starts > 1 }.count
        if twice > 0 { findings.fail("\(twice) of \(count) operations ran their work more than once") }
        if let states = await value(within: patience, { operations.map(StateSample.init) }) {
            let wrong = states.filter { !$0.isFinished || $0.isExecuting }
            if let first = wrong.first {
                findings.fail(
                    "\(wrong.count) of \(count) operations did not end finished and not executing (one said \(first))")
            }
        } else {
            findings.fail("reading their states did not return")
        }
        if queue.operationCount > 0 {
            findings.fail("their queue still held \(queue.operationCount) of them after all had finished")
        }
        for subject in subjects { subject.watch.detach() }
    }

    /// Weak references: an operation that ran, one cancelled before it started, and one never
    /// queued are all freed once nothing but Foundation holds them.
    func freedOnceFinished(_ findings: inout Findings) async {
        let ran = WeakReference<Operation>()
        let cancelled = WeakReference<Operation>()
        let dropped = WeakReference<Operation>()
        let finished = Tally()
        let queue = OperationQueue()
        do {
            let running = subject(ending: .soon)
            let cancelledFirst = subject(ending: .atOnce)
            ran.object = running.operation
            cancelled.object = cancelledFirst.operation
            dropped.object = subject(ending: .held).operation
            for subject in [running, cancelledFirst] {
                subject.operation.completionBlock = { finished.add() }  // holds nothing but the tally
            }
            guard await cancel(cancelledFirst) else {
                findings.fail("cancel() never returned")
                return Quarantine.keep([running, cancelledFirst, queue])
            }
            guard await enqueue([running, cancelledFirst], on: queue) else {
                findings.fail("addOperation(_:) did not return")
                return Quarantine.keep([running, cancelledFirst, queue])
            }
        }
        let deadline = ContinuousClock.now + .seconds(patience)
        while finished.value < 2 && ContinuousClock.now < deadline { await pause(0.005) }
        guard finished.value == 2 else {
            return findings.fail("the operations never finished, so whether they are freed cannot be seen")
        }
        for (reference, what) in [
            (ran, "an operation that ran and finished"), (cancelled, "an operation cancelled before it started"),
            (dropped, "an operation dropped without ever being queued"),
        ] {
            // Foundation lets go of a finished operation on its own thread, a moment later.
            while reference.object != nil && ContinuousClock.now < deadline + .seconds(patience) {
                await pause(0.005)
            }
            if reference.object != nil {
                findings.fail(
                    "\(what) was never freed: something it holds holds it (a closure that captures it strongly, and that it keeps after finishing?)"
                )
            }
        }
    }

    // MARK: - Steps

    /// Ends every work at the same time, from global dispatch queues: a third by one call, a
    /// third by two calls at once, a third racing a `cancel()` of its operation.
    ///
    /// Returns once every call has returned. Synchronous: it waits for them.
    private func endTogether(_ works: [ContractWork], cancelling operations: [Operation]) {
        let group = DispatchGroup()
        for (index, work) in works.enumerated() {
            switch index % 3 {
            case 0:
                DispatchQueue.global().async(group: group) { work.end() }
            case 1:
                let done = work.takeEnding()  // nil for work in a task, which now returns
                for _ in 0..<2 { DispatchQueue.global().async(group: group) { done?() } }
            default:
                let operation = operations[index]
                DispatchQueue.global().async(group: group) { operation.cancel() }
                DispatchQueue.global().async(group: group) { work.end() }
            }
        }
        group.wait()
    }

    /// How many of `subjects` the queue never learned finished within `bound` seconds in all.
    func unfinished(_ subjects: [Subject], within bound: Double) async -> Int {
        let deadline = ContinuousClock.now + .seconds(bound)
        var unfinished = 0
        for subject in subjects {
            let left = max(0.001, -seconds(since: deadline))
            if !(await subject.watch.learned.wait(seconds: left)) { unfinished += 1 }
        }
        return unfinished
    }

    /// Notes a failure after which every subject (and their queue) is kept for good.
    func stuckAll(_ subjects: [Subject], _ queue: OperationQueue, _ failure: String, _ findings: inout Findings) {
        findings.fail(failure)
        for subject in subjects { subject.watch.quarantine() }
        Quarantine.keep([queue])
    }
}
