/// What ``checkContract(clauses:patience:_:)`` found: one ``ClauseResult`` per clause checked.
///
/// ``passed`` is true when no clause failed; ``description`` reads as a short report, one
/// line per clause, with what the kit saw under each failure:
///
/// ```swift
/// let report = await checkContract { work in MyOperation(work) }
/// #expect(report.passed, "\(report)")   // Swift Testing
/// XCTAssertTrue(report.passed, "\(report)")   // XCTest
/// ```
public struct ContractReport: Sendable, CustomStringConvertible {
    /// The name of the checked operation's class, as Swift prints its type.
    public let operationType: String
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
        let failed = failures.count
        let notChecked = results.filter { $0.verdict == .notChecked }.count
        var summary = "\(operationType): "
        summary += failed == 0 ? "keeps the contract" : "\(failed) of \(results.count) clauses failed"
        summary += " (\(results.count - failed - notChecked) passed"
        summary += notChecked > 0 ? ", \(notChecked) not checked here)" : ")"
        summary += ", checked in \(formatted(seconds)) s"
        return ([summary] + results.map(\.description)).joined(separator: "\n")
    }
}

/// How one clause fared: its ``verdict`` and the ``evidence`` behind it.
public struct ClauseResult: Sendable, CustomStringConvertible {
    /// The clause.
    public let clause: ContractClause
    /// Passed, failed, or not checked on this platform.
    public let verdict: ClauseVerdict
    /// What the kit saw: why it failed, or what it could not check, in plain sentences.
    public let evidence: [String]
    /// How long checking the clause took, in seconds.
    public let seconds: Double

    /// One line with the verdict, the clause and its chapter; the evidence below it.
    public var description: String {
        let chapter = "(chapter \(clause.chapter), \(clause.chapterTitle))"
        let head = "  \(verdict.label) \(clause.summary) \(chapter)"
        return ([head] + evidence.map { "      - \($0)" }).joined(separator: "\n")
    }
}

/// The verdict on one clause.
public enum ClauseVerdict: String, Sendable, CustomStringConvertible {
    /// The operation kept the clause.
    case passed
    /// The operation broke the clause; the evidence says how.
    case failed
    /// The clause cannot be checked on this platform (the evidence says why), or does not
    /// apply to this operation (its work cannot end twice, for example).
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

/// `seconds` with one decimal.
func formatted(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}
