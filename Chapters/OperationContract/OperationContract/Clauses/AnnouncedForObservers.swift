import Foundation

extension ContractClause {
    /// Each change is announced with `willChangeValue(forKey:)` before it and
    /// `didChangeValue(forKey:)` after it.
    ///
    /// Darwin only: on Linux, `willChangeValue(forKey:)` does nothing and cannot be observed.
    ///
    /// On a Mac only, where key-value observing is real: each change of "isExecuting" and
    /// "isFinished" must be announced with `willChangeValue(forKey:)` before it and
    /// `didChangeValue(forKey:)` after it. Chapter 2.
    public static let announcedForObservers = ContractClause(
        "announcedForObservers", "Each change is announced with willChangeValue before and didChangeValue after",
        chapter: 2
    ) { $0.announcedForObservers($1) }
}

extension Checker {
    func announcedForObservers(_ run: ClauseRun) {
        #if canImport(ObjectiveC)
            let subject = subject(run, ending: .held)
            guard self.run(subject, on: OperationQueue(), run) else { return }
            guard untilExecuting(subject, run) != nil else {
                return stuck(subject, .gettersAnswer, "while its work ran, its getters did not answer", run)
            }
            guard end(subject, run) else { return }
            subject.watch.detach()
            for problem in announcementProblems(subject.watch.notes.current) { run.fail(problem) }
        #else
            run.cannotCheck(
                "Linux has no key-value observing: willChangeValue(forKey:) does nothing there and cannot be seen, and the effect of didChangeValue(forKey:) on the queue is what finishIsAnnounced checks"
            )
        #endif
    }
}

#if canImport(ObjectiveC)
    /// What is wrong with the key-value notifications an observer heard during one run (start,
    /// work, finish), one sentence each.
    func announcementProblems(_ notes: [KeyValueNote]) -> [String] {
        var problems: [String] = []
        for (key, changes) in [("isExecuting", [true, false]), ("isFinished", [true])] {
            var value = false  // both start false
            var pendingPrior: KeyValueNote?
            var heard: [Bool] = []
            for note in notes where note.key == key {
                if note.isPrior {
                    if note.value != value {
                        problems.append(
                            "\"\(key)\" had already changed to \(note.value) when willChangeValue(forKey:) announced it"
                        )
                    }
                    pendingPrior = note
                } else {
                    if pendingPrior == nil {
                        problems.append(
                            "\"\(key)\" was announced after a change without willChangeValue(forKey:) before it")
                    }
                    pendingPrior = nil
                    if note.value != value { heard.append(note.value) }
                    value = note.value
                }
            }
            if heard != changes {
                problems.append("observers heard \"\(key)\" change to \(heard) instead of \(changes)")
            }
        }
        return problems
    }
#endif
