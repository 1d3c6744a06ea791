import Exercise4
import Foundation
import OperationContract
import Testing

@Suite("Exercise 4 — the contract kit's clauses for an operation that its callback finishes")
struct Exercise4ContractTests {
    @Test("the contract kit finds it finished by its callback: at once, later, twice, or cancelled as it starts")
    func contractKitClauses() async {
        let report = await checkContract(
            clauses: [
                .executingWhileWorking, .finishIsAnnounced, .workEndingAtOnce, .secondFinishChangesNothing,
                .cancelAsItStarts,
            ],
            patience: 1
        ) { work in CallbackOperation { complete in work.start(then: complete) } }
        #expect(report.passed, "the contract kit's report:\n\(report)\n(hint: \"\(Self.hint(for: report))\")")
    }

    /// The section of Hint.md for the first clause that failed.
    static func hint(for report: ContractReport) -> String {
        switch report.failures.first?.clause {
        case .workEndingAtOnce, .secondFinishChangesNothing: "Any thread will do"
        default: "The callback finishes"
        }
    }
}
