import Exercise4
import Foundation
import OperationContract
import TestSupport
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
        for failure in contractFailures(in: report, subject: "CallbackOperation", learnersClass: "CallbackOperation") {
            Issue.record(Comment(rawValue: "\(failure.message) (hint: \"\(Self.hint(for: failure.clauses[0]))\")"))
        }
    }

    /// The section of Hint.md for a clause that failed.
    static func hint(for clause: ContractClause) -> String {
        switch clause {
        case .workEndingAtOnce, .secondFinishChangesNothing: "Any thread will do"
        default: "The callback finishes"
        }
    }
}
