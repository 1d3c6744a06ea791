import Dispatch
import Foundation

// The steps the clauses share. Each runs on the clause's thread; each call that can reach the
// operation's code runs on a thread the kit can abandon, bounded by the patience. A step that
// finds a premise broken notes it (`ClauseRun.broken`) and returns false; the clause then
// stops.

extension Checker {
    /// Sets up the subject's dependent and completion block, on a thread the kit can abandon.
    func attach(_ subject: Subject, _ run: ClauseRun, holdable: Bool = false) -> Bool {
        run.doing("setting up a dependent and a completion block of the operation")
        let watch = subject.watch
        guard Bounded.returns(within: patience, { watch.attach(holdable: holdable) }) else {
            run.broken(
                .gettersAnswer,
                "setting its completionBlock and making another operation depend on it had not returned after \(formatted(patience)) s",
                in: self)
            subject.watch.quarantine()
            return false
        }
        return true
    }

    /// Its getters, read on a thread of the kit's own; nil if they did not answer within the
    /// patience (a lock that a stuck thread holds), or did not answer before.
    func state(of subject: Subject) -> StateSample? {
        subject.state(within: patience)
    }

    /// "it says isExecuting = …", or that its getters do not answer: for a failure's evidence.
    ///
    /// Read for a quarter second at most (a failure has been seen already), and without
    /// marking the getters silent for the reads that follow.
    func says(_ subject: Subject) -> String {
        guard !subject.isSilent else { return "its getters do not answer" }
        let operation = subject.operation
        let state = Bounded.value(within: min(patience, 0.25 * ProcessSanitizer.stretch)) { StateSample(of: operation) }
        return state.map { "it says \($0)" } ?? "its getters do not answer"
    }

    /// Calls `cancel()` on a thread of the kit's own; false if it did not return.
    func cancel(_ subject: Subject) -> Bool {
        let operation = subject.operation
        return Bounded.returns(within: patience) { operation.cancel() }
    }

    /// Adds the operations to `queue` on a thread of the kit's own; false if that did not return.
    ///
    /// Only those that do not say they are finished already: Foundation traps on adding a
    /// finished operation. Foundation reads `isReady` as it adds one.
    func enqueue(_ subjects: [Subject], on queue: OperationQueue) -> Bool {
        let operations = subjects.map(\.operation)
        return Bounded.returns(within: patience) {
            for operation in operations where !operation.isFinished { queue.addOperation(operation) }
        }
    }

    /// Waits until the subject says it is executing (or finished); nil if its getters stopped
    /// answering, else what it said last.
    func untilExecuting(_ subject: Subject, _ run: ClauseRun) -> StateSample? {
        var last: StateSample?
        _ = run.until(patience) {
            last = state(of: subject)
            return last.map { $0.isExecuting || $0.isFinished } ?? true
        }
        return last
    }

    /// Queues the subject (a dependent and a completion block attached) and waits for its work
    /// to start.
    ///
    /// False, with the premise noted and the subject kept for good, if it does not.
    func run(_ subject: Subject, on queue: OperationQueue, _ run: ClauseRun, holdable: Bool = false) -> Bool {
        guard run.needs(.workStarts, in: self), attach(subject, run, holdable: holdable) else { return false }
        run.doing("adding it to a queue")
        guard enqueue([subject], on: queue) else {
            stuck(subject, .gettersAnswer, "addOperation(_:) had not returned after \(formatted(patience)) s", run)
            return false
        }
        run.doing("waiting for its work to start")
        guard run.wait(subject.work.started, patience) else {
            stuck(
                subject, .workStarts,
                "added to a queue, its work had not started \(formatted(patience)) s later (nothing called the kit's ContractWork.start(then:) or run()); \(says(subject))",
                run)
            return false
        }
        return true
    }

    /// Ends the held work and waits until the queue learns that the operation finished.
    ///
    /// False, with the premise noted and the subject kept for good, if either does not happen.
    func end(_ subject: Subject, _ run: ClauseRun) -> Bool {
        guard run.needs(.finishIsAnnounced, in: self) else {
            subject.watch.quarantine()
            return false
        }
        let work = subject.work
        run.doing("ending its work")
        guard Bounded.returns(within: patience, { work.end() }) else {
            stuck(
                subject, .finishIsAnnounced,
                "its work ended, and the call that reported it (the kit calling, on a thread of its own, the closure given to start(then:)) had not returned \(formatted(patience)) s later; \(says(subject))",
                run)
            return false
        }
        run.doing("waiting for its queue to learn that it finished")
        guard run.wait(subject.watch.learned, patience) else {
            let completion =
                subject.watch.completions.value > 0 ? "its completion block ran" : "nor its completion block"
            stuck(
                subject, .finishIsAnnounced,
                "its work ended, and \(formatted(patience)) s later its queue had not learned that it finished: no dependent started (\(completion)); \(says(subject))",
                run)
            return false
        }
        return true
    }

    /// Calls `waitUntilFinished()` on a thread of the kit's own, and returns a signal raised
    /// when it returns.
    func waiter(for subject: Subject) -> Signal {
        let returned = Signal()
        let operation = subject.operation
        onKitThread("OperationContract.waiter") {
            blockUntilFinished(operation)
            returned.raise()
        }
        return returned
    }

    /// Checks that the subject ended finished and not executing.
    func expectFinished(_ subject: Subject, _ run: ClauseRun, _ context: String = "after it finished") {
        guard let state = settled(subject) else {
            return run.fail("\(context), its getters did not answer within \(formatted(patience)) s")
        }
        if state.isFinished && state.isExecuting {
            run.broken(.notExecutingOnceFinished, "\(context), it said \(state)", in: self)
        } else if !state.isFinished || state.isExecuting {
            run.fail("\(context), it said \(state)")
        }
    }

    /// Its state; read again a moment later if it says it is executing and finished at once (a
    /// `finish()` that clears `isExecuting` after "isFinished": reported when the finish is
    /// announced, by executingWhileWorking, not each time a read lands in between).
    func settled(_ subject: Subject) -> StateSample? {
        let first = state(of: subject)
        guard let first, first.isFinished && first.isExecuting else { return first }
        Thread.sleep(forTimeInterval: settle)
        return state(of: subject)
    }

    /// Checks that the completion block ran, and only once.
    func expectOneCompletion(_ subject: Subject, _ run: ClauseRun, _ context: String = "") {
        let completions = subject.watch.completions
        guard run.wait(completions.first, patience) else {
            return run.fail("\(context)its completion block had not run \(formatted(patience)) s after it finished")
        }
        run.pause(settle)
        if completions.value != 1 { run.fail("\(context)its completion block ran \(completions.value) times") }
    }

    /// Notes that `premise` does not hold, and keeps the subject for good: it never finished.
    func stuck(_ subject: Subject, _ premise: Premise, _ observation: String, _ run: ClauseRun) {
        run.broken(premise, observation, in: self)
        subject.watch.quarantine()
    }

    /// Notes a failure after which the subject is left as it is, kept for good.
    func stuck(_ subject: Subject, _ failure: String, _ run: ClauseRun) {
        run.fail(failure)
        subject.watch.quarantine()
    }

    /// False, noting why, if the subject already finished while its work runs: there is no
    /// running operation left to cancel.
    func stillRunning(_ subject: Subject, _ run: ClauseRun) -> Bool {
        guard run.needs(.runsUntilItsWorkEnds, in: self) else { return false }
        guard subject.watch.learned.isRaised else { return true }
        run.broken(
            .runsUntilItsWorkEnds, "its queue learned that it finished while its work still ran: a dependent started",
            in: self)
        let work = subject.work
        _ = Bounded.returns(within: patience) { work.end() }
        subject.watch.detach()
        return false
    }
}

/// Blocks the calling thread until `operation` has finished.
///
/// Synchronous on purpose: a blocking wait never runs in async code (Apple's SDK forbids it
/// there).
func blockUntilFinished(_ operation: Operation) {
    operation.waitUntilFinished()
}

/// Raised just before an operation's `start()` is called, on the thread that calls it, which
/// it remembers (on Linux) to ask the kernel whether that thread is blocked.
final class StartMark: Sendable {
    let signal = Signal()
    private let starter = Locked<KernelThread?>(nil)

    func raise() {
        starter.withLock { $0 = KernelThread.current }
        signal.raise()
    }

    var thread: KernelThread? { starter.current }
}

/// A thread of this process as Linux names it ("1234/task/1240"); nil elsewhere.
struct KernelThread: Sendable {
    let path: String

    /// The calling thread.
    static var current: KernelThread? {
        #if os(Linux)
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")).map(KernelThread.init)
        #else
            nil
        #endif
    }

    /// Whether the kernel says the thread sleeps: blocked in a wait.
    ///
    /// `S` or `D` in its stat (`man 5 proc`); false while it runs, or once it has ended.
    var isBlocked: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(path)/stat", encoding: .utf8),
            let name = stat.lastIndex(of: ")"),
            let state = stat[name...].dropFirst(2).first
        else { return false }
        return state == "S" || state == "D"
    }
}

/// What the kit saw of a cancelled operation's `isExecuting` while it started.
enum ExecutingSeen {
    /// It said it was executing, at that moment.
    case said(StateSample)
    /// It never did while it was watched.
    case never
}

extension Checker {
    /// Starts a cancelled subject with `start` and watches whether it ever says it is executing,
    /// as Foundation reads it.
    ///
    /// On Linux, the kit holds Foundation's lock of the operation first (`FoundationLockHold`):
    /// the operation stops at the first moment Foundation reads its getters — the announcement of
    /// "isExecuting", or of "isFinished" — and the kit reads them there, then lets go. A thread
    /// of the kit's reads them all along too. On Darwin, the key-value observer heard every
    /// announcement. The subject must have been attached with `holdable: true`.
    ///
    /// `start` starts the operation, and raises the mark it is given on the thread that calls
    /// `start()`, just before: once the operation has stopped, or said it is executing or
    /// finished, the kit lets go of the lock.
    func watchExecuting(_ subject: Subject, _ run: ClauseRun, starting start: (StartMark) -> Void) -> ExecutingSeen {
        let operation = subject.operation
        let seen = Locked<StateSample?>(nil)
        let done = Signal()
        let deadline = Date(timeIntervalSinceNow: patience)
        #if os(Linux)
            let hold = subject.watch.holdFoundationLock()
            if hold == nil {
                run.note("Foundation's lock of the operation could not be held: its isExecuting was sampled instead")
            }
        #endif
        // The sampler: reads the getters until the operation says it finished. While the kit
        // holds Foundation's lock it rests a little between reads: the operation stops at the
        // hold anyway, and a reader that takes the operation's own lock again and again would
        // keep the operation waiting for it (a mutex is not fair), short of the hold.
        let samples = Locked(0)
        let sampler = Locked<KernelThread?>(nil)
        #if os(Linux)
            let rest = hold == nil ? 0 : 0.0002
        #else
            let rest = 0.0
        #endif
        onKitThread("OperationContract.sampler") {
            defer { done.raise() }
            sampler.withLock { $0 = KernelThread.current }
            while Date() < deadline {
                let state = StateSample(of: operation)
                if state.isExecuting { seen.withLock { $0 = $0 ?? state } }
                if state.isFinished { return }
                samples.withLock { $0 += 1 }
                if rest > 0 { Thread.sleep(forTimeInterval: rest) }
            }
        }
        let began = StartMark()
        start(began)
        #if os(Linux)
            if let hold {
                // Stopped where Foundation reads the getters: it says executing or finished
                // there, or neither if it stopped at an earlier call into Foundation's lock.
                // Held until the sampler has seen it say one of them, or until its thread is
                // blocked and the sampler has read the getters since (progress, not a moment:
                // on a loaded machine either thread may not run for a while, and a release
                // before the sampler looked lets "executing" go unseen) — or is blocked too,
                // in a getter that waits for a lock the stopped operation holds: nothing more
                // can be read until the kit lets go.
                _ = run.wait(began.signal, patience)
                var blocked: (polls: Int, samples: Int)?
                _ = run.until(patience) {
                    if seen.current != nil || done.isRaised { return true }
                    guard began.thread?.isBlocked == true else {
                        blocked = nil
                        return false
                    }
                    let read = samples.current
                    let since = blocked ?? (0, read)
                    blocked = (since.polls + 1, since.samples)
                    // Blocked at three looks in a row, with two whole reads of the getters
                    // since the first: not waiting for the lock the getters take, which the
                    // resting sampler leaves free nearly all the time.
                    guard since.polls + 1 >= 3 else { return false }
                    return read >= since.samples + 2 || read == since.samples && sampler.current?.isBlocked == true
                }
                hold.release()
            }
        #endif
        _ = run.wait(done, patience)
        if let state = seen.current { return .said(state) }
        #if canImport(ObjectiveC)
            if subject.watch.heardExecuting == true {
                return .said(subject.state(within: patience) ?? StateSample(executing: true))
            }
        #endif
        return .never
    }
}

/// The operation's getters, if they answer within a moment; nil if not.
///
/// For reads while the kit holds Foundation's lock of the operation: an operation stopped
/// there may hold its own lock, which its getters wait for until the kit lets go.
func peek(_ operation: Operation) -> StateSample? {
    Bounded.value(within: 0.02 * ProcessSanitizer.stretch) { StateSample(of: operation) }
}

extension StateSample {
    /// A sample that says only `isExecuting` (for an announcement heard, not read).
    init(executing: Bool) {
        isExecuting = executing
        isFinished = false
        isCancelled = true
    }
}

extension Checker {
    /// Lets a suspended `queue` start its operation; `began` is raised just before the queue
    /// calls `start()`, on the thread that calls it (a serial queue runs its next block on the
    /// thread that ran the one before).
    func start(_ queue: StartingQueue, signalling began: StartMark) {
        queue.serial.suspend()
        queue.serial.async { began.raise() }
        queue.isSuspended = false  // its start() now waits behind the marker
        queue.serial.resume()
    }
}

/// A suspended operation queue that starts its operations on a serial dispatch queue of the
/// kit's, so that the kit can run a marker just before one is started.
///
/// It holds that dispatch queue: Foundation's `underlyingQueue` does not (Linux declares it
/// `unowned(unsafe)`).
final class StartingQueue: OperationQueue, @unchecked Sendable {
    // @unchecked Sendable: adds a constant to Foundation's thread-safe queue.
    let serial = DispatchQueue(label: "OperationContract.start")

    override init() {
        super.init()
        underlyingQueue = serial
        isSuspended = true
    }
}
