import Exercise2
import Foundation
import OperationContract
import TestSupport
import Testing

@Suite("Exercise 2 — the contract kit's clauses for finish()")
struct Exercise2ContractTests {
    @Test("the contract kit finds finish() announced, for work that ends at once or later")
    func contractKitClauses() async {
        let report = await checkContract(
            clauses: [.executingWhileWorking, .finishIsAnnounced, .workEndingAtOnce, .announcedForObservers],
            patience: 1
        ) { work in KitGreeting(work) }
        for failure in contractFailures(in: report, subject: "KitGreeting", learnersClass: "AnnouncingOperation") {
            Issue.record(Comment(rawValue: "\(failure.message) (hint: \"\(Self.hint(for: failure.clauses[0]))\")"))
        }
    }

    /// The section of Hint.md for a clause that failed.
    static func hint(for clause: ContractClause) -> String {
        switch clause {
        case .workEndingAtOnce: "Outside the lock"
        case .announcedForObservers: "Why both calls"
        default: "Announce each change"
        }
    }
}

/// The learner's base around the kit's work, as an app's subclass would be: `main()` starts the
/// work, which calls `finish()` when it ends.
final class KitGreeting: AnnouncingOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to the learner's base.
    let work: ContractWork
    init(_ work: ContractWork) { self.work = work }
    override func main() { work.start { self.finish() } }
}
