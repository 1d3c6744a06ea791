import ContractSubjects
import Foundation
import OperationContract
import TestSupport
import Testing

#if os(macOS) || os(Linux)
    /// A run of `contract-checks` in a child process, awaited without blocking a thread: an
    /// exit test would hold one of Swift's cooperative threads while its child runs.
    struct ContractChild {
        /// What the child printed, line by line.
        let lines: [String]
        /// Its exit status; nil if it had to be killed.
        let status: Int32?
        /// How long it ran, in seconds.
        let seconds: Double

        /// The verdicts it printed, by clause.
        var verdicts: [ContractClause: ClauseVerdict] { ReportLines.verdicts(in: lines) }
        /// The report it printed.
        var report: String { ReportLines.report(in: lines).joined(separator: "\n") }

        /// The evidence lines the report shows under `clause`.
        func evidence(of clause: ContractClause) -> [String] {
            let report = ReportLines.report(in: lines)
            guard let head = report.firstIndex(where: { $0.contains(" \(clause.rawValue): ") }) else { return [] }
            return Array(report[(head + 1)...].prefix { $0.hasPrefix("      ") })
        }

        /// Runs `contract-checks` with `arguments`; kills it if it has not exited once the
        /// kit's bound for a whole check at `patience` (30 × `patience`) and 10 s more have passed.
        static func run(_ arguments: [String], patience: Double = 2) async throws -> ContractChild {
            let began = Date()
            let child = try ChildProcess("contract-checks", arguments: arguments)
            let inTime = await child.exits(within: (30 * patience + 10) * boundStretch)
            if !inTime { child.terminate() }
            let lines = child.printedLines + child.errorOutput.components(separatedBy: "\n")
            return ContractChild(
                lines: lines, status: inTime ? child.status : nil, seconds: Date().timeIntervalSince(began))
        }
    }
#endif

/// The verdicts of a report, by clause.
func verdicts(of report: ContractReport) -> [ContractClause: ClauseVerdict] {
    Dictionary(uniqueKeysWithValues: report.results.map { ($0.clause, $0.verdict) })
}
