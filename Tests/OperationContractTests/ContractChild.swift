import ContractSubjects
import Foundation
import OperationContract
import TestSupport
import Testing

#if os(macOS) || os(Linux)
    /// A run of `contract-checks` in a child process, awaited without blocking a thread: an
    /// exit test would hold one of Swift's cooperative threads while its child runs, and these
    /// children run for seconds, while the kit's other checks in this process need those threads.
    struct ContractChild {
        /// What the child printed, line by line.
        let lines: [String]
        /// Its exit status; nil if it had to be killed.
        let status: Int32?

        /// The verdicts it printed, by clause.
        var verdicts: [ContractClause: ClauseVerdict] { ReportLines.verdicts(in: lines) }
        /// The report it printed.
        var report: String { ReportLines.report(in: lines).joined(separator: "\n") }

        /// Runs `contract-checks` with `arguments`; kills it after `seconds`.
        static func run(_ arguments: [String], within seconds: Double = 120) async throws -> ContractChild {
            let child = try ChildProcess("contract-checks", arguments: arguments)
            let inTime = await child.exits(within: seconds)
            if !inTime { child.terminate() }
            let lines = child.printedLines + child.errorOutput.components(separatedBy: "\n")
            return ContractChild(lines: lines, status: inTime ? child.status : nil)
        }
    }
#endif

/// The verdicts of a report, by clause.
func verdicts(of report: ContractReport) -> [ContractClause: ClauseVerdict] {
    Dictionary(uniqueKeysWithValues: report.results.map { ($0.clause, $0.verdict) })
}
