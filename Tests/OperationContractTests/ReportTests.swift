import ContractSubjects
import Foundation
import OperationContract
import TestSupport
import Testing
import XCTest

@Suite("OperationContract's report: readable, and usable from both test libraries")
struct ReportTests {
    @Test("the description: a summary line, then one line per clause with its chapter, evidence indented")
    func description() async {
        let report = await checkContract(clauses: [.cancelledBeforeStart, .announcedForObservers]) {
            BrokenOperation(.startIgnoresCancel, $0)
        }
        let lines = report.description.components(separatedBy: "\n")
        #expect(lines.first?.hasPrefix("BrokenOperation: 1 of 2 clauses failed (") == true, "\(report)")
        #expect(
            lines.contains("  FAILED      \(ContractClause.cancelledBeforeStart.summary) (chapter 3, Cancellation)"))
        #expect(lines.contains("      - its work ran, though it was cancelled before its queue started it"))
        #expect(report.failures.map(\.clause) == [.cancelledBeforeStart])
        #expect(!report.passed)
        #expect(report[.announcedForObservers] != nil && report[.freedOnceFinished] == nil)
    }

    @Test("recordIssues() records one issue per failed clause, and none for a report that passed")
    func recordIssues() async {
        let failing = await checkContract(clauses: [.cancelledBeforeStart, .cancelWhileWaiting, .executingWhileWorking])
        {
            BrokenOperation(.startIgnoresCancel, $0)
        }
        let recorded = Counter()
        withKnownIssue("the operation runs its work though it was cancelled") {
            failing.recordIssues()
        } matching: { issue in
            recorded.increment()
            return issue.description.contains("breaks the contract")
        }
        #expect(recorded.value == 2)
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
}

/// The same check from XCTest: the report's `passed` and its description are all it needs.
final class ContractXCTests: XCTestCase {
    func testAnOperationWithoutMistakesKeepsTheContract() async {
        let report = await checkContract(result: \.result) { BrokenOperation(.none, $0) }
        XCTAssertTrue(report.passed, "\(report)")
    }

    func testAnOperationThatRunsCancelledWorkFails() async {
        let report = await checkContract(clauses: [.cancelledBeforeStart]) { BrokenOperation(.startIgnoresCancel, $0) }
        XCTAssertFalse(report.passed)
        XCTAssertEqual(report[.cancelledBeforeStart]?.verdict, .failed, "\(report)")
    }
}
