/// What ``checkContract(clauses:patience:_:)`` found: one ``ClauseResult`` per clause checked.
///
/// ``passed`` is true when no clause failed; ``description`` reads as a short report, one
/// line per clause, with what the kit saw under each failure and what to read about it:
///
/// ```swift
/// let report = await checkContract { work in MyOperation(work) }
/// #expect(report.passed, "\(report)")   // Swift Testing
/// XCTAssertTrue(report.passed, "\(report)")   // XCTest
/// ```
public struct ContractReport: Sendable, CustomStringConvertible {
    /// The checked operation's class, with its module, as Swift prints it:
    /// `MyAppTests.CheckedUpload`.
    public let operationType: String
    /// The classes the checked class inherits from, nearest first, up to Foundation's
    /// `Operation` (not included): `["MyApp.AppOperation"]`.
    public let lineage: [String]
    /// One result per clause checked, in the order of `ContractClause.allCases`.
    public let results: [ClauseResult]
    /// How long the whole check took, in seconds.
    public let seconds: Double

    /// True when no clause failed (clauses that could not be checked here do not count).
    public var passed: Bool { failures.isEmpty }

    /// The clauses that failed, each with its evidence.
    public var failures: [ClauseResult] { results.filter { $0.verdict == .failed } }

    /// The result of `clause`, or nil if it was not checked.
    ///
    /// ```swift
    /// #expect(report[.cancelledBeforeStart]?.verdict == .passed)
    /// ```
    public subscript(clause: ContractClause) -> ClauseResult? {
        results.first { $0.clause == clause }
    }

    /// The report, one line per clause, with the evidence of each failure indented below it.
    public var description: String {
        ([summary(naming: classDescription)] + results.map(\.description)).joined(separator: "\n")
    }

    /// The report of the failed clauses only, the class called `className`: for a learner who
    /// knows the class by the name they gave it, not by the test's subclass that the kit ran.
    ///
    /// ```swift
    /// Issue.record(Comment(rawValue: report.failuresDescription(naming: "AnnouncingOperation")))
    /// ```
    public func failuresDescription(naming className: String? = nil) -> String {
        ([summary(naming: className ?? classDescription)] + failures.map(\.description)).joined(separator: "\n")
    }

    /// `MyAppTests.CheckedUpload (a MyApp.AppOperation)`.
    private var classDescription: String {
        lineage.first.map { "\(operationType) (a \($0))" } ?? operationType
    }

    private func summary(naming name: String) -> String {
        let failed = failures.count
        let notChecked = results.filter { $0.verdict == .notChecked }.count
        var summary = "\(name): "
        summary += failed == 0 ? "keeps the contract" : "\(failed) of \(results.count) clauses failed"
        summary += " (\(results.count - failed - notChecked) passed"
        summary += notChecked > 0 ? ", \(notChecked) not checked)" : ")"
        summary += ", checked in \(formatted(seconds)) s"
        return summary
    }
}

/// How one clause fared: its ``verdict`` and the ``evidence`` behind it.
public struct ClauseResult: Sendable, CustomStringConvertible {
    /// The clause.
    public let clause: ContractClause
    /// Passed, failed, or not checked.
    public let verdict: ClauseVerdict
    /// What the kit saw: why it failed, or why it could not check it, in plain sentences.
    public let evidence: [String]
    /// How long checking the clause took, in seconds.
    public let seconds: Double

    /// One line with the verdict, the clause's name and summary; the evidence below it, and
    /// for a failure, what to read about the clause.
    public var description: String {
        let head = "  \(verdict.label) \(clause.rawValue): \(clause.summary)"
        let read = verdict == .failed ? ["      read: \(clause.reading)"] : []
        return ([head] + evidence.map { "      - \($0)" } + read).joined(separator: "\n")
    }
}

/// The verdict on one clause.
public enum ClauseVerdict: String, Sendable, CustomStringConvertible {
    /// The operation kept the clause.
    case passed
    /// The operation broke the clause; the evidence says how.
    case failed
    /// The clause could not be checked: on this platform, for this operation (its work cannot
    /// end twice, say), or because a defect reported under another clause stops it (the
    /// evidence says which).
    case notChecked

    /// `passed`, `failed` or `notChecked`.
    public var description: String { rawValue }

    /// The verdict as the report prints it, in a column of equal width.
    var label: String {
        switch self {
        case .passed: "passed     "
        case .failed: "FAILED     "
        case .notChecked: "not checked"
        }
    }
}
