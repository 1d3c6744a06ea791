import Foundation

/// What a check said of one mutant.
public enum MutantOutcome: Equatable, Sendable {
    /// The check rejected it: how ("fails: errorsInOrder", "has a data race").
    case rejected(String)
    case passed
    /// Not counted: a mutant that does not compile tells nothing about the tests.
    case doesNotCompile
    /// Not counted: the run was stopped from outside.
    case notJudged(String)

    /// What a check says of a mutant.
    public init(_ checked: Result<Checked, any Error>) {
        guard case .success(let (judgement, observation)) = checked, observation.endedFromOutside == nil else {
            self = .notJudged((try? checked.get().observation.endedFromOutside) ?? "\(checked)")
            return
        }
        let tests = judgement.caughtBy.subtracting([Variant.raceDetector]).sorted()
        let named = tests.prefix(3).joined(separator: ", ") + (tests.count > 3 ? ", …" : "")
        switch judgement.verdict {
        case .passes: self = .passed
        case .doesNotCompile: self = .doesNotCompile
        default: self = .rejected(judgement.verdict.rawValue + (tests.isEmpty ? "" : ": " + named))
        }
    }

    public var description: String {
        switch self {
        case .rejected(let how): "rejected (\(how))"
        case .passed: "PASSED"
        case .doesNotCompile: "does not compile"
        case .notJudged(let how): "not judged (\(how))"
        }
    }
}

/// The mutants an exercise declares equivalent, each with its reason, in
/// `Reference/EquivalentMutants.md`: one item per mutant, its name as `mutants` prints it in
/// backticks, then " — " and why it changes nothing the exercise asks for:
///
///     - `recursive lock in Collector: private let lock = NSLock()` — the lock is never taken twice.
///
/// Other lines are prose for the reader.
public struct EquivalentMutants: Sendable {
    /// Reason by mutant's name.
    public var reasons: [String: String] = [:]
    /// Items that cannot be read, one sentence each.
    public var problems: [String] = []

    public init(text: String) {
        for line in text.split(separator: "\n") where line.hasPrefix("- `") {
            let item = line.dropFirst(3)
            guard let end = item.range(of: "` —") else {
                problems.append("an item without \"` — <reason>\": \(line)")
                continue
            }
            let reason = item[end.upperBound...].trimmingCharacters(in: .whitespaces)
            if reason.isEmpty { problems.append("an item without a reason: \(line)") }
            reasons[String(item[..<end.lowerBound])] = reason
        }
    }

    public static func file(of exercise: Exercise) -> URL {
        exercise.reference.appendingPathComponent("EquivalentMutants.md")
    }

    /// Records mutant `name` of `exercise`'s solution in its file, with `reason` (a new file
    /// gets a heading); throws if the solution has no such mutant.
    public static func record(_ name: String, because reason: String, of exercise: Exercise) throws {
        let solution = try String(contentsOf: exercise.solution, encoding: .utf8)
        let stub = try String(contentsOf: exercise.stub, encoding: .utf8)
        guard Mutant.all(of: solution, writtenOver: stub).contains(where: { $0.name == name }) else {
            throw WorkshopError(
                "exercise \(exercise.number) has no mutant `\(name)` (`mutants \(exercise.number) --list` names them)")
        }
        let heading = """
            # Exercise \(exercise.number): equivalent mutants

            Mutants of Reference/Solution.swift that change nothing the exercise asks for, and why
            (`Scripts/workshop mutants \(exercise.number)` counts them as equivalents: they must pass).
            """
        // Recorded again, a mutant keeps one item: the new reason replaces the old one.
        let lines = ((try? String(contentsOf: file(of: exercise), encoding: .utf8)) ?? heading)
            .split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("- `\(name)` —") }
        let kept = lines.joined(separator: "\n").trimmingCharacters(in: .newlines)
        let text =
            kept + (kept.split(separator: "\n").last?.hasPrefix("- ") == true ? "\n" : "\n\n")
            + "- `\(name)` — \(reason)\n"
        try text.write(to: file(of: exercise), atomically: true, encoding: .utf8)
    }

    public static func read(_ exercise: Exercise) -> EquivalentMutants {
        EquivalentMutants(text: (try? String(contentsOf: file(of: exercise), encoding: .utf8)) ?? "")
    }
}

/// One exercise's mutants with their outcomes, scored: every mutant that changes behaviour must
/// be rejected, every equivalent one (a rewrite, or one the exercise lists) must pass.
public struct MutationScore: Sendable {
    public let exercise: Int
    public var rejected = 0
    public var nonEquivalent = 0
    public var equivalentsPassed = 0
    public var equivalents = 0
    public var notCompiled: [String] = []
    public var notJudged: [String] = []
    /// Mutants that change behaviour and passed, and equivalent ones that did not.
    public var survivors: [Mutant] = []
    public var rejectedEquivalents: [(mutant: Mutant, how: String)] = []
    /// Listed equivalents that name no mutant of today's solution.
    public var stale: [String] = []
    public var seconds: Double = 0

    public init(exercise: Int, results: [(Mutant, MutantOutcome)], listed: EquivalentMutants) {
        self.exercise = exercise
        for (mutant, outcome) in results {
            let equivalent = mutant.isRewrite || listed.reasons[mutant.name] != nil
            switch (outcome, equivalent) {
            case (.doesNotCompile, _): notCompiled.append(mutant.name)
            case (.notJudged(let how), _): notJudged.append("\(mutant.name): \(how)")
            case (.passed, true):
                equivalents += 1
                equivalentsPassed += 1
            case (.rejected(let how), true):
                equivalents += 1
                rejectedEquivalents.append((mutant, how))
            case (.passed, false):
                nonEquivalent += 1
                survivors.append(mutant)
            case (.rejected, false):
                nonEquivalent += 1
                rejected += 1
            }
        }
        let names = Set(results.map(\.0.name))
        stale = listed.reasons.keys.filter { !names.contains($0) }.sorted()
    }

    /// The row of the workshop page's table.
    public var row: String {
        "| \(exercise) | \(rejected) of \(nonEquivalent) | \(equivalentsPassed) of \(equivalents) | \(notCompiled.count) | "
            + String(format: "%.0f s |", seconds)
    }

    /// What the command prints at the end of an exercise: the score, then what to do about
    /// each survivor (its change, as a diff against the solution), each rejected equivalent,
    /// and the equivalents' file's stale items.
    public func report(solution: String) -> [String] {
        var lines = [
            "Exercise \(exercise): \(rejected) of \(nonEquivalent) mutants rejected; \(equivalentsPassed) of \(equivalents) equivalents accepted; \(notCompiled.count) did not compile"
                + (notJudged.isEmpty ? "" : "; \(notJudged.count) not judged (stopped from outside)") + "."
        ]
        for mutant in survivors {
            lines.append("  Survived (needs a test, or a line in Reference/EquivalentMutants.md): \(mutant.name)")
            lines += unifiedDiff(from: solution, to: mutant.source, oldName: "solution", newName: "mutant", context: 1)
                .dropFirst(2).map { "      " + $0 }
        }
        for (mutant, how) in rejectedEquivalents {
            lines.append("  An equivalent was rejected (it \(how)): \(mutant.name)")
        }
        for name in stale {
            lines.append("  Reference/EquivalentMutants.md names no mutant of today's solution: \(name)")
        }
        for item in notJudged { lines.append("  Not judged: \(item)") }
        return lines
    }

    static let tableStart = "<!-- The table below is written by `Scripts/workshop mutants --save`. -->"
    static let tableEnd = "<!-- End of the table written by `Scripts/workshop mutants --save`. -->"

    /// The workshop page `readme` with the rows of `scores` in its table of mutation scores
    /// (the other exercises' rows kept, the rows in the exercises' order).
    public static func readme(_ readme: String, with scores: [MutationScore]) throws -> String {
        var rows: [Int: String] = [:]
        for line in readme.components(separatedBy: tableStart).dropFirst().first?.split(separator: "\n") ?? [] {
            if line.hasPrefix(tableEnd) { break }
            if line.hasPrefix("| "), let number = Int(line.dropFirst(2).prefix { $0.isNumber }) {
                rows[number] = String(line)
            }
        }
        for score in scores { rows[score.exercise] = score.row }
        let table =
            [
                "| # | Mutants rejected | Equivalents accepted | Did not compile | Time |",
                "| --- | --- | --- | --- | --- |",
            ]
            + rows.keys.sorted().map { rows[$0]! }
        return try Generated.replacingTable(in: readme, between: tableStart, and: tableEnd, with: table)
    }
}
