import Dispatch
import Foundation

/// Checks that the operations `makeOperation` makes keep the contract of an asynchronous
/// operation, and reports each clause with the evidence seen.
///
/// Hand it a factory that wraps a piece of work the kit controls — a ``ContractWork`` — into
/// your operation. The kit makes operations with it, runs them on queues as an app does, ends
/// their work at the moments each clause needs, and watches what the queue, the dependents,
/// the waiters and the completion blocks see:
///
/// ```swift
/// import OperationContract
/// import Testing
///
/// @Test func myOperationKeepsTheContract() async {
///     let report = await checkContract { work in MyOperation { done in work.start(then: done) } }
///     #expect(report.passed, "\(report)")
/// }
/// ```
///
/// Every wait is bounded by `patience`: an operation that deadlocks, or never finishes, fails
/// its clause instead of hanging the test, and the kit keeps it (and its queue) alive for
/// the rest of the process, so that Foundation never follows a dangling pointer to it. An
/// operation that traps — a `fatalError` in its `cancel()`, say — ends the process; to
/// check such an operation, run the check in a child process (<doc:RunningTheCheck>).
/// A class that keeps the contract is checked in one to three seconds.
///
/// - Parameters:
///   - clauses: the clauses to check; all of them unless you say otherwise.
///   - patience: how long, in seconds, the kit waits for something a correct operation does
///     at once (it finishes, a waiter returns); four times as long under a sanitizer.
///   - makeOperation: makes one new operation that runs the work it is given. Called many
///     times, on any thread.
/// - Returns: the verdict on each clause, with the evidence.
public func checkContract<Checked: Operation>(
    clauses: [ContractClause] = ContractClause.allCases,
    patience: Double = 2,
    _ makeOperation: @escaping @Sendable (ContractWork) -> Checked
) async -> ContractReport {
    await Checker(make: makeOperation, readResult: nil, patience: patience).report(on: clauses)
}

/// Checks the contract of operations that end with a `Result`, the result included.
///
/// The same as ``checkContract(clauses:patience:_:)``, and ``ContractClause/resultOnEveryPath``
/// too: `result` is the key path of the operation's result, and the kit checks that the
/// result is there when the finish is announced, that it is a failure when the operation was
/// cancelled, and that nothing changes it afterwards. The work the kit hands out always
/// succeeds, so a result operation reports its success when the work calls back:
///
/// ```swift
/// let report = await checkContract(result: \.result) { work in
///     TaskOperation { await work.run() }
/// }
/// ```
///
/// - Parameters:
///   - clauses: the clauses to check; all of them unless you say otherwise.
///   - patience: how long, in seconds, the kit waits for something a correct operation does
///     at once; four times as long under a sanitizer.
///   - result: the key path of the operation's result, nil until it has one.
///   - makeOperation: makes one new operation that runs the work it is given.
/// - Returns: the verdict on each clause, with the evidence.
public func checkContract<Checked: Operation, Success, Failure: Error>(
    clauses: [ContractClause] = ContractClause.allCases,
    patience: Double = 2,
    result: any KeyPath<Checked, Result<Success, Failure>?> & Sendable,
    _ makeOperation: @escaping @Sendable (ContractWork) -> Checked
) async -> ContractReport {
    let readResult: @Sendable (Operation) -> ResultShape? = { operation in
        guard let checked = operation as? Checked else { return nil }
        return checked[keyPath: result].map(ResultShape.init)
    }
    return await Checker(make: makeOperation, readResult: readResult, patience: patience).report(on: clauses)
}

/// Runs the clauses on operations that `make` makes.
struct Checker<Checked: Operation>: Sendable {
    let make: @Sendable (ContractWork) -> Checked
    /// Reads an operation's result, if the caller said how.
    let readResult: (@Sendable (Operation) -> ResultShape?)?
    /// The bound of every wait for something a correct operation does.
    let patience: Double
    /// How long "nothing more happens" is watched: a second completion, a finish that must
    /// not come yet.
    ///
    /// Such a check cannot fail a correct operation; a longer one only makes a broken one
    /// more likely to show.
    var settle: Double { min(0.1 * ProcessSanitizer.stretch, patience) }
    private let madeType = Locked<String?>(nil)

    init(
        make: @escaping @Sendable (ContractWork) -> Checked, readResult: (@Sendable (Operation) -> ResultShape?)?,
        patience: Double
    ) {
        self.make = make
        self.readResult = readResult
        self.patience = patience * ProcessSanitizer.stretch
    }

    /// Checks `clauses`, in the order of `ContractClause.allCases`.
    func report(on clauses: [ContractClause]) async -> ContractReport {
        let began = ContinuousClock.now
        var results: [ClauseResult] = []
        for clause in ContractClause.allCases where clauses.contains(clause) {
            results.append(await check(clause))
        }
        return ContractReport(operationType: typeName, results: results, seconds: seconds(since: began))
    }

    /// The dynamic type of the operations made, once one was made.
    var typeName: String { madeType.current ?? String(describing: Checked.self) }

    func check(_ clause: ContractClause) async -> ClauseResult {
        let began = ContinuousClock.now
        var findings = Findings()
        switch clause {
        case .executingWhileWorking: await executingWhileWorking(&findings)
        case .finishIsAnnounced: await finishIsAnnounced(&findings)
        case .workEndingAtOnce: await workEndingAtOnce(&findings)
        case .secondFinishChangesNothing: await secondFinishChangesNothing(&findings)
        case .cancelledBeforeStart: await cancelledBeforeStart(&findings)
        case .cancelWhileWaiting: await cancelWhileWaiting(&findings)
        case .cancelWhileRunning: await cancelWhileRunning(&findings)
        case .cancelStopsTheWork: await cancelStopsTheWork(&findings)
        case .cancelAsItStarts: await cancelAsItStarts(&findings)
        case .resultOnEveryPath: await resultOnEveryPath(&findings)
        case .dependenciesUnderLoad: await dependenciesUnderLoad(&findings)
        case .manyAtOnce: await manyAtOnce(&findings)
        case .freedOnceFinished: await freedOnceFinished(&findings)
        case .announcedForObservers: await announcedForObservers(&findings)
        }
        return findings.result(for: clause, seconds: seconds(since: began))
    }

    /// A new operation of the checked class, running a new work that ends as `ending` says.
    ///
    /// - Parameters:
    ///   - sampleWhenWorkStarts: read the operation's state as its work starts (`atWorkStart`).
    ///   - whenWorkStarts: called as the work starts, on the thread that starts it.
    func subject(
        ending: ContractWork.Ending, sampleWhenWorkStarts: Bool = false,
        whenWorkStarts action: (@Sendable (Operation, ContractWork) -> Void)? = nil
    ) -> Subject {
        // Weak: the operation holds its work, which must not hold the operation back.
        let operationBox = WeakReference<Operation>()
        let sampleAtStart = Locked<StateSample??>(nil)
        let patience = patience
        let work = ContractWork(ending: ending) { work in
            guard let operation = operationBox.object else { return }
            if sampleWhenWorkStarts {
                // On the thread that starts the work (main(), usually), bounded: a class that
                // runs main() while holding its own lock would block this read.
                let sample = sampleBlocking(operation, within: patience)
                sampleAtStart.withLock { $0 = $0 ?? .some(sample) }
            }
            action?(operation, work)
        }
        let operation = make(work)
        operationBox.object = operation
        madeType.withLock { $0 = $0 ?? String(describing: type(of: operation)) }
        return Subject(operation: operation, work: work, sampleAtStart: sampleAtStart, readResult: readResult)
    }

    /// The operation's getters, read on a thread of the kit's own; nil if they did not answer
    /// within the patience (a lock that a stuck thread holds).
    func state(of subject: Subject) async -> StateSample? {
        let operation = subject.operation
        return await value(within: patience) { StateSample(of: operation) }
    }

    /// Calls `cancel()` on a thread of the kit's own; false if it did not return.
    func cancel(_ subject: Subject) async -> Bool {
        let operation = subject.operation
        return await returns(within: patience) { operation.cancel() }
    }

    /// Adds the operations to `queue` — only those that do not say they are finished already:
    /// Foundation traps on adding a finished operation.
    ///
    /// False if adding them did not return.
    func enqueue(_ subjects: [Subject], on queue: OperationQueue) async -> Bool {
        let operations = subjects.map(\.operation)
        return await returns(within: patience) {
            for operation in operations where !operation.isFinished { queue.addOperation(operation) }
        }
    }

    /// Waits until the subject says it is executing; nil if it did not within the patience,
    /// else what it said.
    func untilExecuting(_ subject: Subject) async -> StateSample? {
        let deadline = ContinuousClock.now + .seconds(patience)
        while ContinuousClock.now < deadline {
            guard let state = await state(of: subject) else { return nil }
            if state.isExecuting || state.isFinished { return state }
            await pause(0.002)
        }
        return await state(of: subject)
    }

    /// Waits until `queue` no longer holds any operation; false after the patience.
    func drains(_ queue: OperationQueue) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(patience)
        while queue.operationCount > 0 {
            if ContinuousClock.now > deadline { return false }
            await pause(0.005)
        }
        return true
    }

    /// Calls `waitUntilFinished()` on a thread of the kit's own, and returns a signal raised
    /// when it returns.
    func waiter(for subject: Subject) -> Signal {
        let returned = Signal()
        let operation = subject.operation
        Thread {
            blockUntilFinished(operation)
            returned.raise()
        }.start()
        return returned
    }
}

/// One operation under check, with the work it runs and its watch.
final class Subject: Sendable {
    let operation: Operation
    let work: ContractWork
    let watch: Watch
    private let sampled: Locked<StateSample??>

    init(
        operation: Operation, work: ContractWork, sampleAtStart: Locked<StateSample??>,
        readResult: (@Sendable (Operation) -> ResultShape?)?
    ) {
        self.operation = operation
        self.work = work
        self.watch = Watch(operation, readResult: readResult)
        self.sampled = sampleAtStart
    }

    /// What the operation said when its work started: nil if the work has not started (or
    /// nothing was sampled), `.some(nil)` if reading it did not return.
    var atWorkStart: StateSample?? { sampled.current }
}

/// What a clause found: failures (each a sentence), and notes that explain a pass or a
/// "not checked".
struct Findings {
    private(set) var failures: [String] = []
    private(set) var notes: [String] = []
    private(set) var notChecked = false

    mutating func fail(_ sentence: String) { failures.append(sentence) }
    mutating func note(_ sentence: String) { notes.append(sentence) }
    mutating func cannotCheck(_ sentence: String) {
        notChecked = true
        notes.append(sentence)
    }

    var failed: Bool { !failures.isEmpty }

    func result(for clause: ContractClause, seconds: Double) -> ClauseResult {
        let verdict: ClauseVerdict = failed ? .failed : notChecked ? .notChecked : .passed
        return ClauseResult(clause: clause, verdict: verdict, evidence: failures + notes, seconds: seconds)
    }
}

/// The operation's getters, read on a thread of their own, waiting at most `seconds`: nil if
/// they did not answer.
///
/// Synchronous: the work calls it from the thread that starts it.
func sampleBlocking(_ operation: Operation, within seconds: Double) -> StateSample? {
    let sample = Locked<StateSample?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread {
        let read = StateSample(of: operation)
        sample.withLock { $0 = read }
        done.signal()
    }.start()
    guard done.wait(timeout: .now() + seconds) == .success else { return nil }
    return sample.current
}

/// Blocks the calling thread until `operation` has finished.
///
/// Synchronous on purpose: a blocking wait never runs in async code (Apple's SDK forbids it
/// there).
func blockUntilFinished(_ operation: Operation) {
    operation.waitUntilFinished()
}

/// The seconds since `instant` (negative for an instant still to come).
func seconds(since instant: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - instant
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}
