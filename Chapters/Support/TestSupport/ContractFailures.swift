import OperationContract

/// The failures of a contract kit's report, as an exercise's test reports them: one line per
/// defect, in the learner's class name — the clauses that failed with the same evidence are
/// named together, once — and nothing about the clauses that passed or were not checked.
///
/// The kit checks the learner's class through a small subclass of the test's (`KitGreeting`);
/// `subject` is that subclass's name, and `learnersClass` the name the learner wrote, which
/// replaces it in the evidence.
public func contractFailures(
    in report: ContractReport, subject: String, learnersClass: String
) -> [(clauses: [ContractClause], message: String)] {
    var groups: [(clauses: [ContractClause], evidence: [String])] = []
    for failure in report.failures {
        let evidence = failure.evidence.map { $0.replacingOccurrences(of: subject, with: learnersClass) }
        if let index = groups.firstIndex(where: { $0.evidence == evidence }) {
            groups[index].clauses.append(failure.clause)
        } else {
            groups.append(([failure.clause], evidence))
        }
    }
    return groups.map { group in
        let names = group.clauses.map { "\"\($0.summary)\"" }.joined(separator: ", ")
        let seen = group.evidence.isEmpty ? "" : ": " + group.evidence.joined(separator: "; ")
        return (group.clauses, "the contract kit checked \(learnersClass): \(names) failed\(seen)")
    }
}
