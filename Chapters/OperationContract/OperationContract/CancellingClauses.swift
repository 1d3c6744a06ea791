import Dispatch
import Foundation

// The clauses about cancelling (chapters 3 and 5).

extension Checker {
    /// Cancelled before it is queued: it finishes when its queue starts it, without its work,
    /// never executing.
    func cancelledBeforeStart(_ findings: inout Findings) async {
        // Work that ends at once: if the operation runs it anyway, it still finishes.
        let subject = subject(ending: .atOnce)
        subject.watch.attach()
        guard await cancel(subject) else {
            return stuck(subject, "cancel() never returned", &findings)
        }
        guard let cancelled = await state(of: subject) else {
            return stuck(subject, "reading its state after cancel() did not return", &findings)
        }
        if cancelled.isFinished {
            findings.fail(
                "cancel() marked it finished before any queue had started it: Foundation traps when a finished operation is added to a queue, so it could not be queued"
            )
            return subject.watch.detach()
        }
        guard await enqueue([subject], on: OperationQueue()) else {
            return stuck(subject, "addOperation(_:) did not return", &findings)
        }
        guard await subject.watch.learned.wait(seconds: patience) else {
            let said = await state(of: subject).map { "it says \($0)" } ?? "reading its state does not return"
            return stuck(subject, "cancelled, then queued, it never finished: \(said)", &findings)
        }
        if subject.work.starts > 0 {
            findings.fail("its work ran, though it was cancelled before its queue started it")
        }
        if let announced = subject.watch.atAnnouncement, announced.isExecuting {
            findings.fail("when it announced its finish, it said isExecuting = true")
        }
        #if canImport(ObjectiveC)
            if subject.watch.notes.current.contains(where: { $0.key == "isExecuting" && !$0.isPrior && $0.value }) {
                findings.fail("it announced that it was executing, though it was cancelled before it started")
            }
        #endif
        await expectFinished(subject, &findings)
        await expectOneCompletion(subject, &findings)
        subject.watch.detach()
    }

    /// Cancelled while it waits in a suspended queue: not finished until the queue starts it.
    func cancelWhileWaiting(_ findings: inout Findings) async {
        let subject = subject(ending: .atOnce)
        subject.watch.attach()
        let queue = OperationQueue()
        queue.isSuspended = true
        guard await enqueue([subject], on: queue) else {
            return stuck(subject, "addOperation(_:) did not return", &findings)
        }
        guard await cancel(subject) else {
            return stuck(subject, "cancel() never returned while it waited in its queue", &findings)
        }
        guard let cancelled = await state(of: subject) else {
            return stuck(subject, "reading its state after cancel() did not return", &findings)
        }
        if cancelled.isFinished {
            findings.fail(
                "cancel() marked it finished while it waited in its queue, which had not started it: Foundation says \"went isFinished=YES without being started by the queue it is in\", its completion block can run twice, and on Linux the queue can crash later"
            )
            // The queue stays suspended and is never freed, nor is the operation: Foundation's
            // bookkeeping of that queue now points at an operation it already let go of.
            return subject.watch.quarantine(with: [queue])
        }
        queue.isSuspended = false
        guard await subject.watch.learned.wait(seconds: patience) else {
            let said = await state(of: subject).map { "it says \($0)" } ?? "reading its state does not return"
            return stuck(
                subject, "cancelled in its queue, it never finished once the queue started it: \(said)", &findings)
        }
        if subject.work.starts > 0 {
            findings.fail("its work ran, though it was cancelled before its queue started it")
        }
        await expectFinished(subject, &findings)
        await expectOneCompletion(subject, &findings)
        subject.watch.detach()
    }

    /// Cancelled while its work runs: still executing until the work ends; then it finishes.
    func cancelWhileRunning(_ findings: inout Findings) async {
        let subject = subject(ending: .held)
        subject.watch.attach()
        guard await run(subject, on: OperationQueue(), &findings) else { return }
        guard await untilExecuting(subject) != nil else {
            return stuck(subject, "reading isExecuting did not return while its work ran", &findings)
        }
        guard await stillRunning(subject, &findings) else { return }
        guard await cancel(subject) else {
            return stuck(subject, "cancel() never returned while its work ran", &findings)
        }
        let rightAfter = await state(of: subject)
        await pause(settle)
        let later = await state(of: subject)
        for state in [rightAfter, later] {
            guard let state else {
                return stuck(subject, "reading its state after cancel() did not return", &findings)
            }
            if state.isFinished || !state.isExecuting {
                findings.fail(
                    "cancelled while its work still ran, it said \(state): a serial queue starts the next operation now, and its dependents run, while its work goes on"
                )
                break
            }
        }
        if subject.watch.learned.isRaised {
            findings.fail("its queue learned that it finished before its cancelled work had ended: a dependent started")
        }
        guard await end(subject, &findings) else { return }
        await expectFinished(subject, &findings)
        if let state = await state(of: subject), !state.isCancelled {
            findings.fail("once finished, it no longer said isCancelled = true")
        }
        subject.watch.detach()
    }

    /// Cancelled while running: the work is told to stop, and the finish that follows is seen
    /// as cancelled.
    func cancelStopsTheWork(_ findings: inout Findings) async {
        // Work that ends as soon as it is told to stop, inside that call: the hardest order
        // for an operation that stops its work before it records the cancellation.
        let subject = subject(ending: .whenStopped)
        subject.watch.attach()
        guard await run(subject, on: OperationQueue(), &findings) else { return }
        guard await untilExecuting(subject) != nil else {
            return stuck(subject, "reading isExecuting did not return while its work ran", &findings)
        }
        guard await stillRunning(subject, &findings) else { return }
        guard await cancel(subject) else {
            return stuck(subject, "cancel() never returned while its work ran", &findings)
        }
        if !(await subject.work.stopped.wait(seconds: patience)) {
            findings.fail(
                subject.work.ranAsync
                    ? "cancel() never cancelled the task that runs its work: the work runs to its end"
                    : "cancel() never told its work to stop (nothing called the work's stop()): the work runs to its end"
            )
            guard await end(subject, &findings) else { return }
        }
        guard await subject.watch.learned.wait(seconds: patience) else {
            let said = await state(of: subject).map { "it says \($0)" } ?? "reading its state does not return"
            return stuck(subject, "its work stopped, and it never finished: \(said)", &findings)
        }
        if let announced = subject.watch.atAnnouncement, !announced.isCancelled {
            findings.fail(
                "when it announced its finish, it said isCancelled = false: its work ended before the cancellation was recorded, so dependents and its completion block see an operation that was not cancelled (record the cancellation first, then stop the work)"
            )
        }
        await expectFinished(subject, &findings)
        subject.watch.detach()
    }

    /// False (with the failure noted, the work ended) if the operation already finished while
    /// its work runs: there is no running operation left to cancel.
    func stillRunning(_ subject: Subject, _ findings: inout Findings) async -> Bool {
        guard subject.watch.learned.isRaised else { return true }
        findings.fail(
            "it had already finished while its work still ran, so it could not be cancelled while running (see executingWhileWorking)"
        )
        _ = await returns(within: patience) { subject.work.end() }
        subject.watch.detach()
        return false
    }

    /// A cancel sent the moment the operation says it is executing — after `start()` looked
    /// at `isCancelled` — must still let it finish.
    func cancelAsItStarts(_ findings: inout Findings) async {
        #if canImport(ObjectiveC)
            let tries = 3  // a key-value observer lands the cancel inside start(), every time
        #else
            let tries = 20  // a race: the cancel lands before main() looks only sometimes
        #endif
        var landed = 0
        var beforeTheWork = 0
        for _ in 0..<tries {
            let subject = subject(ending: .whenStopped)
            let operation = subject.operation
            let work = subject.work
            let sent = Signal()
            let missed = Signal()  // it finished before anyone saw it executing
            let workHadStarted = Locked(false)
            let sendCancel: @Sendable () -> Void = {
                workHadStarted.withLock { $0 = work.starts > 0 }
                operation.cancel()
                sent.raise()
            }
            #if canImport(ObjectiveC)
                subject.watch.onExecuting { sendCancel() }
            #else
                let spinUntil = ContinuousClock.now + .seconds(patience)
                Thread {
                    while ContinuousClock.now < spinUntil {
                        let state = StateSample(of: operation)
                        if state.isExecuting { return sendCancel() }
                        if state.isFinished { break }
                    }
                    missed.raise()
                }.start()
            #endif
            subject.watch.attach()
            guard await enqueue([subject], on: OperationQueue()) else {
                return stuck(subject, "addOperation(_:) did not return", &findings)
            }
            let deadline = ContinuousClock.now + .seconds(patience)
            while !sent.isRaised && !missed.isRaised && !subject.watch.learned.isRaised {
                guard ContinuousClock.now < deadline else {
                    return stuck(subject, "queued, it never said it was executing, nor finished", &findings)
                }
                await pause(0.001)
            }
            if sent.isRaised {
                landed += 1
                if !workHadStarted.current { beforeTheWork += 1 }
            }
            // Work that was not told to stop ends now; work that never started cannot end it.
            if await work.started.wait(seconds: settle) {
                guard await returns(within: patience, { work.end() }) else {
                    return stuck(subject, "its work ended, and the call that reported it never returned", &findings)
                }
            }
            guard await subject.watch.learned.wait(seconds: patience) else {
                let said = await state(of: subject).map { "it says \($0)" } ?? "reading its state does not return"
                let why =
                    work.starts == 0
                    ? "its work never started, so nothing will ever finish it: does main() return early when it sees the cancel, without finishing?"
                    : "its work ended, and it still never finished"
                return stuck(
                    subject, "cancelled the moment it said it was executing, it never finished (\(said)): \(why)",
                    &findings)
            }
            subject.watch.detach()
        }
        #if canImport(ObjectiveC)
            findings.note(
                "the cancel was sent from inside the notification that it was executing in \(landed) of \(tries) tries (\(beforeTheWork) before its work started)"
            )
        #else
            findings.note(
                "on Linux the cancel is sent from another thread as soon as the operation says it is executing (\(landed) of \(tries) tries; \(beforeTheWork) before its work started): it lands between start() and main() only by chance, so a narrow window there can pass (on a Mac, a key-value observer sends it from inside start(), every time)"
            )
        #endif
    }
}
