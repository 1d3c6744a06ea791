import Dispatch
import Foundation

// The clauses about running and finishing (chapters 1, 2 and 4).

extension Checker {
    /// Executing from before the work starts until after it ends; not finished before; not
    /// executing once finished.
    func executingWhileWorking(_ findings: inout Findings) async {
        let subject = subject(ending: .held, sampleWhenWorkStarts: true)
        subject.watch.attach()
        guard await run(subject, on: OperationQueue(), &findings) else { return }
        switch subject.atWorkStart {
        case .some(.some(let state)) where state.isFinished:
            findings.fail(
                "its work started after the operation had finished (\(state)): it finished when main() returned, not when its work ended"
            )
        case .some(.some(let state)) where !state.isExecuting:
            findings.fail(
                "its work started before the operation said it was executing (\(state)): main() runs before the state is set, so work that ends at once leaves it executing for ever"
            )
        case .some(.none):
            findings.fail("reading its state while its work started did not return: is main() called with a lock held?")
        default:
            break
        }
        // The work is held: the operation must say executing, and not finished, until it ends.
        guard let running = await untilExecuting(subject) else {
            return stuck(subject, "reading isExecuting did not return while its work ran", &findings)
        }
        await pause(settle)
        let stillRunning = await state(of: subject) ?? running
        for state in [running, stillRunning] where !state.isExecuting || state.isFinished {
            findings.fail("while its work was still running, it said \(state)")
            break
        }
        if subject.watch.learned.isRaised {
            findings.fail("its queue learned that it finished while its work was still running: a dependent started")
        }
        guard await end(subject, &findings) else { return }
        if let announced = subject.watch.atAnnouncement, announced.isExecuting {
            findings.fail(
                "when it announced its finish, it still said isExecuting = true: dependents, waiters and its completion block can find it finished and executing at once (set isExecuting to false before isFinished to true, and announce both)"
            )
        }
        await expectFinished(subject, &findings)
        subject.watch.detach()
    }

    /// A dependent starts after it, a waiter returns, the completion block runs once, the
    /// queue lets it go.
    func finishIsAnnounced(_ findings: inout Findings) async {
        let subject = subject(ending: .held)
        subject.watch.attach()
        let queue = OperationQueue()
        guard await run(subject, on: queue, &findings) else { return }
        guard await untilExecuting(subject) != nil else {
            return stuck(subject, "reading isExecuting did not return while its work ran", &findings)
        }
        // A caller already waiting when the operation finishes: it must be woken, not only
        // a caller that looks afterwards.
        let waiterReturned = waiter(for: subject)
        await pause(settle)
        guard await end(subject, &findings) else { return }
        if !(await waiterReturned.wait(seconds: patience)) {
            findings.fail("waitUntilFinished(), called while its work ran, never returned after it finished")
        }
        await expectOneCompletion(subject, &findings)
        if !(await drains(queue)) {
            findings.fail("its queue still held it \(formatted(patience)) s after it finished (operationCount > 0)")
        }
        subject.watch.detach()
    }

    /// Work that ends inside `main()`: it finishes, without a deadlock, and stays finished.
    func workEndingAtOnce(_ findings: inout Findings) async {
        let subject = subject(ending: .atOnce)
        subject.watch.attach()
        guard await enqueue([subject], on: OperationQueue()) else {
            return stuck(subject, "addOperation(_:) did not return", &findings)
        }
        guard await subject.work.started.wait(seconds: patience) else {
            return stuck(subject, "its work never started (does main() start it?)", &findings)
        }
        if subject.work.ranAsync {
            findings.note("its work runs in a task: it ended as soon as the task ran it, after main() had returned")
        }
        guard await subject.watch.learned.wait(seconds: patience) else {
            let state = await state(of: subject)
            let said = state.map { "it says \($0)" } ?? "reading its state does not return either"
            return stuck(
                subject,
                "its work ended inside main(), and its queue never learned that it finished: \(said) — a deadlock, or a finish that went unannounced",
                &findings)
        }
        await pause(settle)
        guard let state = await state(of: subject) else {
            return stuck(subject, "reading its state did not return after it finished", &findings)
        }
        if !state.isFinished || state.isExecuting {
            findings.fail(
                "its queue learned that it finished, but afterwards it says \(state) — for ever: the state was set to executing after main() returned, over the finish"
            )
            let waiterReturned = waiter(for: subject)
            if !(await waiterReturned.wait(seconds: settle)) {
                findings.fail("so waitUntilFinished() never returns")
            }
            return subject.watch.quarantine()
        }
        let waiterReturned = waiter(for: subject)
        if !(await waiterReturned.wait(seconds: patience)) {
            findings.fail("waitUntilFinished() never returned, though it said it had finished")
        }
        await expectOneCompletion(subject, &findings)
        subject.watch.detach()
    }

    /// The work ends twice — one call after the other, then two at once — and it finishes once.
    func secondFinishChangesNothing(_ findings: inout Findings) async {
        for twoAtOnce in [false, true] {
            let subject = subject(ending: .held)
            subject.watch.attach()
            guard await run(subject, on: OperationQueue(), &findings) else { return }
            guard await untilExecuting(subject) != nil else {
                return stuck(subject, "reading isExecuting did not return while its work ran", &findings)
            }
            guard let done = subject.work.takeEnding() else {
                findings.cannotCheck("its work runs in a task (run()), which returns once: it cannot end twice")
                // takeEnding() let run() return: the operation finishes as usual.
                _ = await subject.watch.learned.wait(seconds: patience)
                return subject.watch.detach()
            }
            let calls =
                twoAtOnce
                ? "its work reported its end from two threads at once"
                : "its work reported its end a second time, after it had finished"
            if twoAtOnce {
                guard
                    await returns(within: patience, { DispatchQueue.concurrentPerform(iterations: 2) { _ in done() } })
                else {
                    return stuck(subject, "\(calls), and a call never returned: a deadlock", &findings)
                }
            } else {
                guard await returns(within: patience, { done() }) else {
                    return stuck(subject, "its work ended, and the call that reported it never returned", &findings)
                }
                guard await subject.watch.learned.wait(seconds: patience) else {
                    return stuck(subject, "it never finished when its work ended", &findings)
                }
                guard await returns(within: patience, { done() }) else {
                    return stuck(subject, "\(calls), and that call never returned: a deadlock", &findings)
                }
            }
            guard await subject.watch.learned.wait(seconds: patience) else {
                return stuck(subject, "\(calls), and it never finished", &findings)
            }
            await pause(settle)
            let completions = subject.watch.completions.value
            if completions != 1 {
                findings.fail("\(calls): its completion block ran \(completions) times")
            }
            if subject.watch.dependentRuns.value != 1 {
                findings.fail("\(calls): its dependent ran \(subject.watch.dependentRuns.value) times")
            }
            if let state = await state(of: subject), !state.isFinished || state.isExecuting {
                findings.fail("\(calls): afterwards it said \(state)")
            }
            if let notifications = subject.watch.finishedNotifications, notifications > 1 {
                findings.fail(
                    "\(calls): it announced \"isFinished\" \(notifications) times, and key-value observers heard every one"
                )
            }
            subject.watch.detach()
        }
        #if !canImport(ObjectiveC)
            findings.note(
                "on Linux a repeated \"isFinished\" announcement cannot be seen from outside the class (Foundation ignores it): on a Mac, key-value observers hear it, and this clause counts them"
            )
        #endif
    }

    /// Darwin: key-value observers heard each change with a notification before it
    /// (`willChangeValue`) and one after it (`didChangeValue`).
    func announcedForObservers(_ findings: inout Findings) async {
        #if canImport(ObjectiveC)
            let subject = subject(ending: .held)
            subject.watch.attach()
            guard await run(subject, on: OperationQueue(), &findings) else { return }
            guard await untilExecuting(subject) != nil else {
                return stuck(subject, "reading isExecuting did not return while its work ran", &findings)
            }
            guard await end(subject, &findings) else { return }
            subject.watch.detach()
            for problem in announcementProblems(subject.watch.notes.current) { findings.fail(problem) }
        #else
            findings.cannotCheck(
                "Linux has no key-value observing: willChangeValue(forKey:) does nothing there and cannot be seen, and the effect of didChangeValue(forKey:) on the queue is what finishIsAnnounced checks"
            )
        #endif
    }

    // MARK: - Steps the clauses share

    /// Queues the subject and waits for its work to start.
    ///
    /// False (with the failure noted and the subject quarantined) if it does not.
    func run(_ subject: Subject, on queue: OperationQueue, _ findings: inout Findings) async -> Bool {
        guard await enqueue([subject], on: queue) else {
            stuck(subject, "addOperation(_:) did not return", &findings)
            return false
        }
        guard await subject.work.started.wait(seconds: patience) else {
            stuck(subject, "its work never started (does main() start it?)", &findings)
            return false
        }
        return true
    }

    /// Ends the held work and waits until the queue learns that the operation finished.
    ///
    /// False (failure noted, subject quarantined) if either does not happen.
    func end(_ subject: Subject, _ findings: inout Findings) async -> Bool {
        let work = subject.work
        guard await returns(within: patience, { work.end() }) else {
            stuck(
                subject, "its work ended, and the call that reported it never returned: finishing deadlocked", &findings
            )
            return false
        }
        guard await subject.watch.learned.wait(seconds: patience) else {
            let said = await state(of: subject).map { "it says \($0)" } ?? "reading its state does not return"
            stuck(
                subject,
                "its work ended, and its queue never learned that it finished (no dependent started; \(said)): is \"isFinished\" announced?",
                &findings)
            return false
        }
        return true
    }

    /// Checks that the subject ended finished and not executing.
    func expectFinished(_ subject: Subject, _ findings: inout Findings) async {
        guard let state = await state(of: subject) else {
            return findings.fail("reading its state did not return after it finished")
        }
        if !state.isFinished || state.isExecuting {
            findings.fail("after it finished, it said \(state)")
        }
    }

    /// Checks that the completion block ran, and only once.
    func expectOneCompletion(_ subject: Subject, _ findings: inout Findings) async {
        guard await subject.watch.completions.first.wait(seconds: patience) else {
            return findings.fail("its completion block never ran")
        }
        await pause(settle)
        let count = subject.watch.completions.value
        if count != 1 { findings.fail("its completion block ran \(count) times") }
    }

    /// Notes a failure after which the subject is left as it is, kept alive for good.
    func stuck(_ subject: Subject, _ failure: String, _ findings: inout Findings) {
        findings.fail(failure)
        subject.watch.quarantine()
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
                            "\"\(key)\" had already changed to \(note.value) when willChangeValue(forKey:) announced it: announce before the change"
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
                problems.append(
                    "observers heard \"\(key)\" change to \(heard) instead of \(changes): a change announced without willChangeValue(forKey:), or not at all, reaches no observer"
                )
            }
        }
        return problems
    }
#endif
