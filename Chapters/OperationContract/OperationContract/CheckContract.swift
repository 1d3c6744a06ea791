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
/// The check always ends with a verdict. It runs on threads of its own, and every wait is
/// bounded by `patience`: an operation that deadlocks, blocks its threads or never finishes
/// fails its clause instead of hanging the test. Each clause ends within 6 × `patience`
/// seconds and the whole check within 30 × `patience` (12 s and 60 s by default); a clause
/// left when that time is spent is reported as not checked. The kit keeps whatever hung (and
/// its queue) alive for the rest of the process, so that Foundation never follows a dangling
/// pointer to it. An operation that traps — a `fatalError` in its `cancel()`, say — ends the
/// process; to check such an operation, run each clause in a child process
/// (<doc:RunningTheCheck>). A class that keeps the contract is checked in about a second.
///
/// - Parameters:
///   - clauses: the clauses to check; all of them unless you say otherwise.
///   - patience: how long, in seconds, the kit waits for something a correct operation does
///     at once (it finishes, a waiter returns); four times as long under a sanitizer, and
///     up to twice as long while Foundation's own `BlockOperation` starts late too.
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
