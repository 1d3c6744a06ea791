import Foundation
import OperationContract

/// How `contract-checks` hands a report to the test that ran it: the report as the kit prints
/// it, then one line per verdict, `contract-verdict <clause> <verdict> <seconds>`.
public enum ReportLines {
    public static let prefix = "contract-verdict "

    /// Prints `report`, then its verdicts, and flushes standard output.
    public static func print(_ report: ContractReport) {
        Swift.print(report)
        for result in report.results {
            Swift.print("\(prefix)\(result.clause) \(result.verdict) \(result.seconds)")
        }
        fflush(nil)  // every output stream: the process exits right after
    }

    /// The verdicts in `lines`, by clause.
    public static func verdicts(in lines: [String]) -> [ContractClause: ClauseVerdict] {
        var verdicts: [ContractClause: ClauseVerdict] = [:]
        for line in lines where line.hasPrefix(prefix) {
            let words = line.dropFirst(prefix.count).split(separator: " ").map(String.init)
            guard words.count >= 2, let clause = ContractClause(rawValue: words[0]),
                let verdict = ClauseVerdict(rawValue: words[1])
            else { continue }
            verdicts[clause] = verdict
        }
        return verdicts
    }

    /// `lines` without the verdict lines: the report as the kit printed it (and anything the
    /// checked operations printed).
    public static func report(in lines: [String]) -> [String] {
        lines.filter { !$0.hasPrefix(prefix) }
    }
}
