import AsyncOperations
import Exercise6
import Foundation
import OperationContract
import Testing

@Suite("Exercise 6 — the contract kit's clauses for a result on every path")
struct Exercise6ContractTests {
    @Test("the contract kit finds one result on every path, and a cancel that stops the request")
    func contractKitClauses() async {
        let report = await checkContract(
            clauses: [.cancelAsItStarts, .resultOnEveryPath, .cancelStopsTheWork, .freedOnceFinished], patience: 1,
            result: \.result
        ) { work in KitRequest.operation(running: work) }
        #expect(report.passed, "the contract kit's report:\n\(report)\n(hint: \"\(Self.hint(for: report))\")")
    }

    /// The section of Hint.md for the first clause that failed.
    static func hint(for report: ContractReport) -> String {
        guard let failure = report.failures.first else { return "One result" }
        if failure.clause == .freedOnceFinished { return "Who holds whom" }
        if failure.evidence.contains(where: { $0.contains("before it started") }) {
            return "Cancelled before it starts"
        }
        if failure.evidence.contains(where: { $0.contains("after it had finished") || $0.contains("second report") }) {
            return "One result"
        }
        return "Cancelled while it runs"
    }
}

/// The kit's work as the exercise's request: it answers with a success; stopped, as a cancelled
/// request is, it never answers.
enum KitRequest {
    static func operation(running work: ContractWork) -> RequestOperation {
        let stopped = Locked(false)
        let operation = RequestOperation { done in
            work.start {
                if !stopped.withLock({ $0 }) { done(.success("answer")) }
            }
        }
        // What cancelling a real request does: the request stops, and never calls back.
        operation.onCancel {
            stopped.withLock { $0 = true }
            work.stop()
        }
        return operation
    }
}
