import Dispatch
import Foundation

extension ContractClause {
    /// A cancel that lands while it starts — after `start()` looked at `isCancelled`, before the
    /// work begins — still lets it finish.
    ///
    /// `cancel()` at the moment the operation says it is executing, after `start()` looked at
    /// `isCancelled`. The operation must still finish: a `main()` that sees the cancel and
    /// returns without finishing leaves it executing for ever. On a Mac the kit sends the
    /// cancel from inside the announcement; on Linux it stops the operation where Foundation
    /// reads its getters and sends it there (<doc:LinuxAndDarwin>). Chapter 3.
    public static let cancelAsItStarts = ContractClause(
        "cancelAsItStarts", "A cancel that lands while it starts still lets it finish", chapter: 3
    ) { $0.cancelAsItStarts($1) }
}

extension Checker {
    func cancelAsItStarts(_ run: ClauseRun) {
        guard run.needs(.workStarts, in: self), run.needs(.finishIsAnnounced, in: self) else { return }
        let tries = 3
        var landed = 0
        var beforeTheWork = 0
        #if !canImport(ObjectiveC)
            var held = 0
        #endif
        for _ in 0..<tries {
            let subject = subject(run, ending: .whenStopped)
            let operation = subject.operation
            let work = subject.work
            let sent = Signal()
            let workHadStarted = Locked(false)
            let sendCancel: @Sendable () -> Void = {
                workHadStarted.withLock { $0 = work.starts > 0 }
                operation.cancel()
                sent.raise()
            }
            guard attach(subject, run, holdable: true) else { return }
            #if canImport(ObjectiveC)
                let queue = OperationQueue()
                subject.watch.onExecuting { sendCancel() }
                guard enqueue([subject], on: queue) else {
                    return stuck(subject, "addOperation(_:) had not returned \(formatted(patience)) s later", run)
                }
                run.doing("waiting for it to say it is executing")
                _ = run.until(patience) { sent.isRaised || subject.watch.learned.isRaised }
            #else
                let queue = StartingQueue()
                // The queue starts it on a serial queue of the kit's, right after a marker: once
                // the marker has run, start() is under way.
                guard enqueue([subject], on: queue) else {
                    return stuck(subject, "addOperation(_:) had not returned \(formatted(patience)) s later", run)
                }
                let hold = subject.watch.holdFoundationLock()
                if hold != nil { held += 1 }
                let starting = StartMark()
                start(queue, signalling: starting)
                // Held, it stops at its first call into Foundation's lock: where Foundation reads
                // its getters as it announces "isExecuting", or earlier in start(). The cancel
                // lands there, and the hold lets go once the cancel is recorded.
                run.doing("waiting for it to say it is executing")
                // Its getters are read briefly (`peek`): stopped while it holds a lock of its
                // own, it cannot answer until the kit lets go.
                var said: StateSample?
                if run.wait(starting.signal, patience) {
                    _ = run.until(hold == nil ? patience : settle) {
                        said = peek(operation)
                        return said.map { $0.isExecuting || $0.isFinished } ?? (hold != nil)
                    }
                }
                if said?.isFinished != true, said?.isExecuting == true || hold != nil {
                    onKitThread("OperationContract.cancel", sendCancel)
                    _ = run.until(settle) { sent.isRaised || peek(operation)?.isCancelled == true }
                }
                hold?.release()
            #endif
            _ = run.wait(sent, settle)
            if sent.isRaised || workHadStarted.current || peek(operation)?.isCancelled == true {
                landed += 1
                if !workHadStarted.current { beforeTheWork += 1 }
            }
            // Work that was not told to stop ends now; work that never started cannot end it.
            run.doing("waiting for its queue to learn that it finished")
            if !run.wait(subject.watch.learned, settle), work.starts > 0 {
                guard Bounded.returns(within: patience, { work.end() }) else {
                    return stuck(
                        subject,
                        "its work ended, and the call that reported it had not returned \(formatted(patience)) s later",
                        run)
                }
            }
            guard run.wait(subject.watch.learned, patience) else {
                if work.endedAt != nil && !work.startReturned.isRaised {
                    return stuck(
                        subject, .endsInsideStart,
                        "cancelled as it started, its work ended inside start(then:) (told to stop there), and start(then:) had not returned \(formatted(patience)) s later; \(says(subject))",
                        run)
                }
                let work = work.starts == 0 ? "its work never started" : "its work had ended"
                return stuck(
                    subject,
                    "cancelled as it started, it had not finished \(formatted(patience)) s later (no dependent started): \(work); \(says(subject))",
                    run)
            }
            subject.watch.detach()
        }
        #if canImport(ObjectiveC)
            run.note(
                "the cancel was sent from inside the notification that it was executing in \(landed) of \(tries) tries (\(beforeTheWork) before its work started)"
            )
        #else
            run.note(
                "the cancel was sent while start() was stopped at its first call into Foundation's lock of the operation in \(held) of \(tries) tries, and landed before its work started in \(beforeTheWork)"
            )
        #endif
    }
}
