import ContractSubjects
import Foundation
import OperationContract
import TestSupport
import Testing
import XCTest

@Suite("OperationContract's report: readable, and usable from both test libraries")
struct ReportTests {
    @Test(
        "the description: the class with its module, one line per clause, evidence indented, and what to read under a failure"
    )
    func description() async {
        let report = await checkContract(clauses: [.cancelledBeforeStart, .announcedForObservers]) {
            BrokenOperation(.startIgnoresCancel, $0)
        }
        let lines = report.description.components(separatedBy: "\n")
        #expect(report.operationType == "ContractSubjects.BrokenOperation")
        #expect(
            lines.first?.hasPrefix("ContractSubjects.BrokenOperation: 1 of 2 clauses failed (") == true, "\(report)")
        let clause = ContractClause.cancelledBeforeStart
        #expect(lines.contains("  FAILED      cancelledBeforeStart: \(clause.summary)"), "\(report)")
        #expect(
            lines.contains("      - its work ran, though it was cancelled before its queue started it"), "\(report)")
        #expect(lines.contains("      read: \(clause.reading)"), "\(report)")
        #expect(!report.description.contains("(chapter"), "\(report)")
        #expect(report.failures.map(\.clause) == [.cancelledBeforeStart])
        #expect(!report.passed)
        #expect(report[.announcedForObservers] != nil && report[.freedOnceFinished] == nil)
    }

    @Test("each clause's documentation is the file of the kit that defines it, and its reading names it in words")
    func documentation() throws {
        for clause in ContractClause.allCases {
            let source = try String(contentsOf: clause.documentation, encoding: .utf8)
            #expect(
                source.contains("public static let \(clause.rawValue) = ContractClause("), "\(clause.documentation)")
            #expect(clause.reading.hasPrefix("ContractClause.\(clause.rawValue) in the OperationContract kit's"))
            #expect(clause.reading.hasSuffix(clause.documentation.absoluteString))
        }
    }

    @Test("a subclass is named with the class it inherits from, and the failures alone under another name")
    func failuresOnly() async {
        let report = await checkContract(clauses: [.executingWhileWorking, .cancelledBeforeStart]) {
            StartIgnoringCancel($0)
        }
        #expect(report.operationType == "OperationContractTests.StartIgnoringCancel")
        #expect(report.lineage == ["ContractSubjects.BrokenOperation"])
        #expect(
            report.description.hasPrefix(
                "OperationContractTests.StartIgnoringCancel (a ContractSubjects.BrokenOperation): 1 of 2 clauses failed"
            ))
        let failures = report.failuresDescription(naming: "TheLearnersOperation").components(separatedBy: "\n")
        #expect(failures.first?.hasPrefix("TheLearnersOperation: 1 of 2 clauses failed") == true, "\(failures)")
        #expect(failures.contains { $0.contains("cancelledBeforeStart") })
        #expect(!failures.contains { $0.contains("executingWhileWorking") }, "\(failures)")
    }

    @Test("recordIssues() records one issue per failed clause, and none for a report that passed")
    func recordIssues() async {
        let failing = await checkContract(clauses: [.cancelledBeforeStart, .cancelWhileRunning, .executingWhileWorking])
        {
            BrokenOperation(.cancelFinishesRunning, $0)
        }
        let recorded = Counter()
        withKnownIssue("cancel() finishes the operation while its work runs") {
            failing.recordIssues()
        } matching: { issue in
            recorded.increment()
            return issue.description.contains("breaks the contract")
        }
        #expect(recorded.value == 1)
        let passing = await checkContract(clauses: [.executingWhileWorking]) { BrokenOperation(.none, $0) }
        passing.recordIssues()  // records nothing: the test would fail otherwise
    }

    @Test("a clause that cannot be checked says why, and does not count as a failure")
    func notChecked() async {
        let report = await checkContract(clauses: [.resultOnEveryPath]) { BrokenOperation(.none, $0) }
        #expect(report.passed)
        #expect(report[.resultOnEveryPath]?.verdict == .notChecked)
        #expect(report[.resultOnEveryPath]?.evidence.first?.contains("checkContract(result:)") == true)
    }

    @Test("a clause that was found broken by a clause not checked is reported by the first clause that met it")
    func premiseWithoutItsClause() async {
        // The finish is never announced; finishIsAnnounced, which reports that, is not checked.
        let report = await checkContract(clauses: [.executingWhileWorking, .cancelWhileRunning], patience: 1) {
            BrokenOperation(.silentFinish, $0)
        }
        #expect(report[.executingWhileWorking]?.verdict == .failed, "\(report)")
        #expect(report[.cancelWhileRunning]?.verdict == .notChecked, "\(report)")
        #expect(report[.cancelWhileRunning]?.evidence.contains { $0.contains("see executingWhileWorking") } == true)
    }

    @Test("a Swift 5-era completion, not @Sendable, is handed to start(then:) as it is")
    func plainCompletion() async {
        let report = await checkContract(clauses: [.executingWhileWorking, .workEndingAtOnce]) { work in
            PlainCompletionOperation { done in work.start(then: done) }
        }
        #expect(report.passed, "\(report)")
    }
}

/// The kit's mistake in a subclass of the test's own: the report names both.
final class StartIgnoringCancel: BrokenOperation, @unchecked Sendable {
    // @unchecked Sendable: adds nothing to its thread-safe superclass.
    init(_ work: ContractWork) { super.init(.startIgnoresCancel, work) }
}

/// An operation written before Swift 6: its work is a closure with a plain completion.
final class PlainCompletionOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: `state` is only touched under `lock`; `body` is a constant.
    private let body: (@escaping () -> Void) -> Void
    private let lock = NSLock()
    private var state = (executing: false, finishing: false, finished: false)

    init(_ body: @escaping (@escaping () -> Void) -> Void) {
        self.body = body
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { state.executing } }
    override var isFinished: Bool { lock.withLock { state.finished } }

    override func start() {
        guard !isCancelled else { return finish() }
        willChangeValue(forKey: "isExecuting")
        lock.withLock { state.executing = true }
        didChangeValue(forKey: "isExecuting")
        body { self.finish() }
    }

    private func finish() {
        let ran: Bool? = lock.withLock {
            guard !state.finishing else { return nil }
            state.finishing = true
            return state.executing
        }
        guard let ran else { return }
        if ran { willChangeValue(forKey: "isExecuting") }
        willChangeValue(forKey: "isFinished")
        lock.withLock { (state.executing, state.finished) = (false, true) }
        if ran { didChangeValue(forKey: "isExecuting") }
        didChangeValue(forKey: "isFinished")
    }
}

/// The same checks from XCTest: the report's `passed` and its description are all it needs.
final class ContractXCTests: XCTestCase {
    func testAnOperationWithoutMistakesKeepsTheContract() async {
        let report = await checkContract(clauses: [.executingWhileWorking, .cancelledBeforeStart], result: \.result) {
            BrokenOperation(.none, $0)
        }
        XCTAssertTrue(report.passed, "\(report)")
    }

    func testAnOperationThatRunsCancelledWorkFails() async {
        let report = await checkContract(clauses: [.cancelledBeforeStart]) { BrokenOperation(.startIgnoresCancel, $0) }
        XCTAssertFalse(report.passed)
        XCTAssertEqual(report[.cancelledBeforeStart]?.verdict, .failed, "\(report)")
    }
}
