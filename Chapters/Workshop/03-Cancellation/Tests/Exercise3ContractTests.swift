import Exercise3
import Foundation
import OperationContract
import TestSupport
import Testing

@Suite("Exercise 3 — the contract kit's clauses for a cancelled operation")
struct Exercise3ContractTests {
    @Test("the contract kit finds a cancelled operation finished by start(), never by cancel()")
    func contractKitClauses() async {
        let report = await checkContract(
            clauses: [.cancelledBeforeStart, .cancelWhileWaiting, .cancelWhileRunning], patience: 1
        ) { work in
            KitCancelAware(work)
        }
        for failure in contractFailures(in: report, subject: "KitCancelAware", learnersClass: "CancelAwareOperation") {
            Issue.record(Comment(rawValue: "\(failure.message) (hint: \"\(Self.hint(for: failure))\")"))
        }
    }

    /// The section of Hint.md for a failure.
    static func hint(for failure: (clauses: [ContractClause], message: String)) -> String {
        switch failure.clauses[0] {
        case .cancelWhileWaiting, .cancelWhileRunning: "Not in cancel()"
        case .cancelledBeforeStart: failure.message.contains("never finished") ? "Finish without running" : "Look first"
        default: "Look first"
        }
    }
}

/// The learner's base around the kit's work: `main()` starts the work, which calls `finish()`
/// when it ends.
final class KitCancelAware: CancelAwareOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to the learner's base.
    let work: ContractWork
    init(_ work: ContractWork) { self.work = work }
    override func main() { work.start { self.finish() } }
}
