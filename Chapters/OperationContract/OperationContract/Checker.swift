import Foundation

/// Runs the clauses on operations that `make` makes, on threads of the kit's own.
///
/// Each clause runs on a thread of its own, with a deadline: a clause that hangs in a call the
/// kit could not bound is left where it is, and reported. Every clause's works are released
/// when it ends (a held work ends, a work that starts later ends at once), so that an operation
/// that blocks a thread until its work ends gives that thread back.
final class Checker: Sendable {
    let make: @Sendable (ContractWork) -> Operation
    /// Reads an operation's result, if the caller said how.
    let readResult: (@Sendable (Operation) -> ResultShape?)?
    /// The bound of every wait for something a correct operation does.
    let patience: Double
    /// The premises found broken so far, with the clause that found each.
    let premises = Locked<[Premise: PremiseFinding]>([:])
    private let madeType = Locked<OperationClass?>(nil)
    /// Set once a cancel of a running operation never told its work to stop within the
    /// patience (the factory wires no stop): later waits for a stop are short.
    let stopsNoWork = Locked(false)

    init(
        make: @escaping @Sendable (ContractWork) -> Operation, readResult: (@Sendable (Operation) -> ResultShape?)?,
        patience: Double
    ) {
        self.make = make
        self.readResult = readResult
        self.patience = patience * ProcessSanitizer.stretch
    }

    /// How long "nothing more happens" is watched: a second completion, a finish that must
    /// not come yet.
    ///
    /// Such a check cannot fail a correct operation; a longer one only makes a broken one
    /// more likely to show.
    var settle: Double { min(0.05 * ProcessSanitizer.stretch, patience) }
    /// How long the kit holds a running work to see that nothing finishes the operation meanwhile.
    ///
    /// Longer than `settle`: a finish that comes a fixed moment after `main()` (a timer, a hop
    /// through a queue) shows only if the kit waits past it; like `settle`, it cannot fail a
    /// correct operation.
    var holdingTime: Double { min(0.25 * ProcessSanitizer.stretch, patience) }
    /// How long to wait for a cancel to tell the work to stop.
    var waitForStop: Double { stopsNoWork.current ? settle : patience }
    /// The most one clause may take: then it is left as it is, and reported.
    var clauseLimit: Double { 6 * patience }
    /// The most the whole check may take: the clauses left then are not checked.
    var checkLimit: Double { 30 * patience }

    /// Checks `clauses` in the order of `ContractClause.allCases`, on a thread of the kit's own.
    func report(on clauses: [ContractClause]) async -> ContractReport {
        await withCheckedContinuation { continuation in
            onKitThread("OperationContract.check") { continuation.resume(returning: self.reportBlocking(on: clauses)) }
        }
    }

    private func reportBlocking(on clauses: [ContractClause]) -> ContractReport {
        let began = Date()
        var runs: [ClauseRun] = []
        for clause in ContractClause.allCases where clauses.contains(clause) {
            let left = checkLimit - Date().timeIntervalSince(began)
            let run = ClauseRun(clause, limit: min(clauseLimit, max(0, left)))
            if left <= 0 {
                run.cannotCheck(
                    "the check's time (\(formatted(checkLimit)) s) was spent before this clause: earlier clauses waited for operations that never answered"
                )
            } else if !Bounded.returns(within: run.limit, { clause.check(self, run) }) {
                run.abandon(budgetSpent: run.limit < clauseLimit)
            }
            run.close()
            runs.append(run)
        }
        let results = resolve(runs)
        let type = madeType.current ?? OperationClass(name: "Operation", lineage: [])
        return ContractReport(
            operationType: type.name, lineage: type.lineage, results: results,
            seconds: Date().timeIntervalSince(began))
    }

    /// The results, each premise found broken reported once: failed by the clause it belongs
    /// to if that clause was checked and failed, else by the first clause that met it.
    private func resolve(_ runs: [ClauseRun]) -> [ClauseResult] {
        let found = premises.current
        var reportedBy: [Premise: ContractClause] = [:]
        for (premise, _) in found {
            if let owner = runs.first(where: { $0.clause == premise.owner }), owner.failed {
                reportedBy[premise] = owner.clause
            } else if let first = runs.first(where: { $0.blocked?.premise == premise }) {
                reportedBy[premise] = first.clause
            }
        }
        return runs.map { run in
            guard let blocked = run.blocked, let reporter = reportedBy[blocked.premise] else { return run.result() }
            if reporter == run.clause && !run.failed {
                return run.result(failingWith: blocked.observation)
            }
            return run.result(notCheckedBecause: "because \(blocked.premise.because): see \(reporter)")
        }
    }

    /// A new operation of the checked class, running a new work that ends as `ending` says.
    ///
    /// - Parameters:
    ///   - sampleWhenWorkStarts: read the operation's state as its work starts (`atWorkStart`).
    ///   - whenWorkStarts: called as the work starts, on the thread that starts it.
    func subject(
        _ run: ClauseRun, ending: ContractWork.Ending, sampleWhenWorkStarts: Bool = false,
        whenWorkStarts action: (@Sendable (Operation, ContractWork) -> Void)? = nil
    ) -> Subject {
        // Weak: the operation holds its work, which must not hold the operation back.
        let operationBox = WeakReference<Operation>()
        let sampleAtStart = Locked<StateSample??>(nil)
        let sampled = Signal()
        let patience = patience
        let work = ContractWork(ending: ending) { work in
            guard let operation = operationBox.object else { return }
            if sampleWhenWorkStarts {
                // On another thread, bounded: a class that runs main() while holding its own
                // lock would block this read until main() returns.
                let sample = Bounded.value(within: patience) { StateSample(of: operation) }
                sampleAtStart.withLock { $0 = $0 ?? .some(sample) }
                sampled.raise()
            }
            action?(operation, work)
        }
        run.register(work)
        let operation = make(work)
        operationBox.object = operation
        madeType.withLock { $0 = $0 ?? OperationClass(of: operation) }
        return Subject(
            operation: operation, work: work, sampleAtStart: sampleAtStart, sampled: sampled, readResult: readResult)
    }
}

/// The checked class's name, with its module, and the classes it inherits from, up to
/// Foundation's `Operation`.
struct OperationClass: Sendable {
    let name: String
    let lineage: [String]

    init(name: String, lineage: [String]) {
        self.name = name
        self.lineage = lineage
    }

    init(of operation: Operation) {
        name = Self.name(of: type(of: operation))
        var lineage: [String] = []
        var mirror = Mirror(reflecting: operation).superclassMirror
        while let current = mirror, current.subjectType != Operation.self {
            lineage.append(Self.name(of: current.subjectType))
            mirror = current.superclassMirror
        }
        self.lineage = lineage
    }

    /// The type's name with its module, without the "(extension in Module):" that Swift
    /// prints for a type declared in an extension.
    private static func name(of type: Any.Type) -> String {
        var name = String(reflecting: type)
        while let start = name.range(of: "(extension in "), let end = name[start.upperBound...].range(of: "):") {
            name.removeSubrange(start.lowerBound..<end.upperBound)
        }
        return name
    }
}

/// Something every later step of a clause relies on.
///
/// When a clause finds it broken, the
/// clauses that need it report "not checked", and the defect is reported once: by the clause it
/// belongs to (its owner), or, if that clause was not checked or passed, by the first clause
/// that met it.
enum Premise: String, Sendable, CaseIterable {
    case workStarts, runsUntilItsWorkEnds, notExecutingOnceFinished, finishIsAnnounced, endsInsideStart, startReturns,
        cancelledFinishes
    case cancelledStaysIdle, cancelLeavesWaitingUnfinished, cancelRecordedFirst, dependenciesHold, gettersAnswer

    /// The clause that reports this premise broken when it is checked.
    var owner: ContractClause? {
        switch self {
        case .workStarts, .runsUntilItsWorkEnds, .notExecutingOnceFinished: .executingWhileWorking
        case .finishIsAnnounced: .finishIsAnnounced
        case .endsInsideStart: .workEndingAtOnce
        case .startReturns: .startedByHand
        case .cancelledFinishes, .cancelledStaysIdle: .cancelledBeforeStart
        case .cancelLeavesWaitingUnfinished: .cancelWhileWaiting
        case .cancelRecordedFirst: .cancelStopsTheWork
        case .dependenciesHold: .dependenciesUnderLoad
        case .gettersAnswer: nil
        }
    }

    /// Why the clauses that need it cannot be checked, as the report says it.
    var because: String {
        switch self {
        case .workStarts: "its work never started when its queue started it"
        case .runsUntilItsWorkEnds: "it says it finished while its work still runs"
        case .notExecutingOnceFinished: "it says it is executing once it has finished"
        case .finishIsAnnounced: "its queue never learns that it finished once its work ends"
        case .endsInsideStart: "work that ends inside start(then:) leaves it unfinished"
        case .startReturns: "its start() does not return while its work runs"
        case .cancelledFinishes: "cancelled before it starts, it never finishes"
        case .cancelledStaysIdle: "cancelled before it starts, it runs its work or says it is executing"
        case .cancelLeavesWaitingUnfinished: "cancel() marks it finished while it waits in its queue"
        case .cancelRecordedFirst: "its work, stopped by cancel(), ends before the cancellation is recorded"
        case .dependenciesHold: "its work starts before the work it depends on has ended"
        case .gettersAnswer: "its getters stopped answering"
        }
    }
}

/// A premise found broken: by which clause, and what it saw.
struct PremiseFinding: Sendable {
    let premise: Premise
    let clause: ContractClause
    let observation: String
}

/// One clause being checked: what it found, its deadline, and the works it made.
final class ClauseRun: @unchecked Sendable {
    // @unchecked Sendable: the variables are only touched under `lock`; the rest are constants.
    let clause: ContractClause
    /// The seconds the clause may take.
    let limit: Double
    private let began = Date()
    private let lock = NSLock()
    private var failures: [String] = []
    private var notes: [String] = []
    private var uncheckable: [String] = []
    private var blockedBy: PremiseFinding?
    private var abandoned = false
    private var step = "starting"
    private var works: [ContractWork] = []
    private var ended: Date?

    init(_ clause: ContractClause, limit: Double) {
        self.clause = clause
        self.limit = limit
    }

    func fail(_ sentence: String) { lock.withLock { failures.append(sentence) } }
    func note(_ sentence: String) { lock.withLock { notes.append(sentence) } }
    func cannotCheck(_ sentence: String) { lock.withLock { uncheckable.append(sentence) } }

    var failed: Bool { lock.withLock { !failures.isEmpty } }
    var blocked: PremiseFinding? { lock.withLock { blockedBy } }

    /// Says what the clause is waiting for now: the report names it if the clause never ends.
    func doing(_ what: String) { lock.withLock { step = what } }

    /// True once the clause's time is spent, or the kit gave up on it: its waits end at once.
    var isOver: Bool { lock.withLock { abandoned } || Date().timeIntervalSince(began) > limit }

    /// Notes that `premise` does not hold: a failure if this clause owns it, else the reason
    /// this clause cannot be checked further.
    func broken(_ premise: Premise, _ observation: String, in checker: Checker) {
        let finding = PremiseFinding(premise: premise, clause: clause, observation: observation)
        checker.premises.withLock { $0[premise] = $0[premise] ?? finding }
        if premise.owner == clause { return fail(observation) }
        lock.withLock { blockedBy = blockedBy ?? finding }
    }

    /// False, noting why, if `premise` was found broken earlier by another clause.
    func needs(_ premise: Premise, in checker: Checker) -> Bool {
        guard premise.owner != clause, let finding = checker.premises.current[premise] else { return true }
        lock.withLock { blockedBy = blockedBy ?? finding }
        return false
    }

    /// Waits for `signal` at most `seconds`, and never past the clause's time.
    ///
    /// Up to twice as long while Foundation's own operation starts late: the time in which the
    /// machine could not have run the subject either is given back (`extend(_:upTo:unless:)`).
    func wait(_ signal: Signal, _ seconds: Double) -> Bool {
        let latest = Date(timeIntervalSinceNow: 2 * seconds)
        var deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            let left = deadline.timeIntervalSinceNow
            if signal.waitBlocking(seconds: min(0.05, max(0, left))) { return true }
            if isOver { return signal.isRaised }
            if left <= 0, !extend(&deadline, upTo: latest, unless: { signal.isRaised }) { return signal.isRaised }
        }
    }

    /// Waits until `condition` holds, looking every few milliseconds, at most `seconds`; up to
    /// twice as long, as `wait(_:_:)`, while Foundation's own operation starts late.
    func until(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let latest = Date(timeIntervalSinceNow: 2 * seconds)
        var deadline = Date(timeIntervalSinceNow: seconds)
        while !condition() {
            if isOver { return condition() }
            if deadline.timeIntervalSinceNow <= 0, !extend(&deadline, upTo: latest, unless: condition) {
                return condition()
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return true
    }

    /// Moves a wait's `deadline` on by as long as a `BlockOperation` added to a queue now waits
    /// to start, up to `latest`; false, leaving it, if the probe starts at once or `done` holds.
    ///
    /// A late start means the machine, or other work in the process, holds the threads that the
    /// subject's queue needs too. The probe is waited for until `latest` at most, and never
    /// past the clause's time.
    private func extend(_ deadline: inout Date, upTo latest: Date, unless done: () -> Bool) -> Bool {
        let bound = min(latest.timeIntervalSinceNow, limit - Date().timeIntervalSince(began))
        guard bound > 0 else { return false }
        let lag = FoundationProbe.lag(within: bound)
        guard lag > FoundationProbe.moment, !done() else { return false }
        deadline = min(Date(timeIntervalSinceNow: lag), latest)
        return true
    }

    /// Lets `seconds` pass (for "nothing more happens" checks only).
    func pause(_ seconds: Double) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while deadline.timeIntervalSinceNow > 0 && !isOver { Thread.sleep(forTimeInterval: 0.002) }
    }

    /// Keeps `work`, to release it when the clause ends.
    func register(_ work: ContractWork) { lock.withLock { works.append(work) } }

    /// Ends every work the clause held, and lets every work that starts later end at once: the
    /// clause is over.
    func close() {
        let made = lock.withLock {
            ended = ended ?? Date()
            return works
        }
        for work in made { work.release() }
    }

    /// Called by the kit when the clause did not end in time: its own (a failure) or what was
    /// left of the whole check's (`budgetSpent`: not checked).
    func abandon(budgetSpent: Bool) {
        lock.withLock {
            abandoned = true
            if budgetSpent {
                uncheckable.append(
                    "the check's time ran out while this clause was \(step): earlier clauses waited for operations that never answered"
                )
            } else {
                failures.append(
                    "the check of this clause did not end within \(formatted(limit)) s: it was \(step), and the kit left it there"
                )
            }
        }
    }

    func result() -> ClauseResult {
        lock.withLock {
            let verdict: ClauseVerdict =
                !failures.isEmpty ? .failed : (blockedBy != nil || !uncheckable.isEmpty) ? .notChecked : .passed
            let because = blockedBy.map { ["not checked: \($0.observation)"] } ?? []
            return ClauseResult(
                clause: clause, verdict: verdict, evidence: failures + uncheckable + because + notes, seconds: seconds)
        }
    }

    func result(failingWith observation: String) -> ClauseResult {
        lock.withLock {
            ClauseResult(
                clause: clause, verdict: .failed, evidence: [observation] + uncheckable + notes, seconds: seconds)
        }
    }

    func result(notCheckedBecause reason: String) -> ClauseResult {
        lock.withLock {
            let verdict: ClauseVerdict = failures.isEmpty ? .notChecked : .failed
            return ClauseResult(
                clause: clause, verdict: verdict, evidence: failures + ["not checked: \(reason)"] + notes,
                seconds: seconds)
        }
    }

    private var seconds: Double { (ended ?? Date()).timeIntervalSince(began) }
}

/// One operation under check, with the work it runs and its watch.
final class Subject: Sendable {
    let operation: Operation
    let work: ContractWork
    let watch: Watch
    private let sample: Locked<StateSample??>
    /// Raised once its state was read as its work started (if the clause asked for it).
    let sampled: Signal
    /// Set once a read of its getters did not return: later reads give up at once.
    private let silent = Locked(false)

    init(
        operation: Operation, work: ContractWork, sampleAtStart: Locked<StateSample??>, sampled: Signal,
        readResult: (@Sendable (Operation) -> ResultShape?)?
    ) {
        self.operation = operation
        self.work = work
        self.watch = Watch(operation, readResult: readResult)
        self.sample = sampleAtStart
        self.sampled = sampled
    }

    /// What the operation said when its work started: nil if the work has not started (or
    /// nothing was sampled), `.some(nil)` if reading it did not return.
    var atWorkStart: StateSample?? { sample.current }

    /// Whether a read of its getters ever failed to return.
    var isSilent: Bool { silent.current }

    /// Its getters, read on a thread of the kit's own; nil if they did not answer in time.
    func state(within seconds: Double) -> StateSample? {
        guard !silent.current else { return nil }
        let operation = operation
        let state = Bounded.value(within: seconds) { StateSample(of: operation) }
        if state == nil { silent.withLock { $0 = true } }
        return state
    }
}

/// `seconds` with one decimal, or two below a tenth: "2.0", "0.05".
func formatted(_ seconds: Double) -> String {
    if seconds > 0 && seconds < 0.095 {
        let hundredths = Int((seconds * 100).rounded())
        return "0.\(hundredths < 10 ? "0" : "")\(hundredths)"
    }
    let tenths = Int((seconds * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}
