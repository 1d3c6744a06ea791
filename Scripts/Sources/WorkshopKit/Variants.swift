import Foundation

/// A version of an exercise's file that `verify` checks, and what must happen: the reference
/// solution and the untouched stub (whole files in Reference/), or a wrong answer or an
/// alternative, each stored as its change to the solution (a `.diff` in WrongAnswers/ or
/// Alternatives/, see `Patch`), so that what they share is written once.
public struct Variant: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// Reference/Solution.swift: must pass.
        case solution
        /// Reference/Stub.swift: must fail (compile, and fail its tests).
        case stub
        /// WrongAnswers/*.diff: must fail, and at least one of the tests it names must be
        /// among those that fail ("ThreadSanitizer" names the race detector's run).
        case wrongAnswer(mistake: String, caughtBy: [String])
        /// Alternatives/*.diff: a correct answer in another style; must pass.
        case alternative(style: String)
    }

    /// What a "Caught by:" line calls the race detector's run.
    public static let raceDetector = "ThreadSanitizer"

    public let kind: Kind
    public let file: URL
    /// The platforms whose runs can show what this variant must show (`Platforms: macOS`),
    /// lowercased; nil: every platform. A mistake that leaves no trace on Linux's Foundation
    /// is judged only where it does.
    public let platforms: [String]?
    /// The change to the solution (wrong answers and alternatives).
    public let patch: Patch?

    public init(kind: Kind, file: URL, platforms: [String]? = nil, patch: Patch? = nil) {
        self.kind = kind
        self.file = file
        self.platforms = platforms
        self.patch = patch
    }

    /// The variant's Swift file: the file itself, or its change applied to `solution`.
    public func source(solution: String) throws -> String {
        guard let patch else { return try String(contentsOf: file, encoding: .utf8) }
        do {
            return try patch.apply(to: solution)
        } catch {
            throw WorkshopError("\(shortPath): \(error); write its change again against Reference/Solution.swift")
        }
    }

    /// Whether `verify` judges this variant on `platform` (by default, this one).
    public func isJudged(on platform: String? = nil) -> Bool {
        #if os(macOS)
            let here = "macos"
        #else
            let here = "linux"
        #endif
        return platforms.map { $0.contains(platform ?? here) } ?? true
    }

    /// What a reader of `verify`'s output needs to tell the variants apart: what it is, and its
    /// file in the exercise's folder (e.g. "WrongAnswers/no-lock.diff").
    public var label: String {
        switch kind {
        case .solution: "solution \(shortPath)"
        case .stub: "untouched stub \(shortPath)"
        case .wrongAnswer(let mistake, _): "wrong answer \(shortPath) (\(mistake))"
        case .alternative(let style): "alternative \(shortPath) (\(style))"
        }
    }

    /// The file, from the exercise's folder: its own folder and its name.
    public var shortPath: String {
        file.deletingLastPathComponent().lastPathComponent + "/" + file.lastPathComponent
    }

    /// Reads a wrong answer's or an alternative's `.diff`: its header lines, `Wrong answer: …`
    /// and `Caught by: a, b`, or `Alternative: …`, and optionally `Platforms: macOS` (the
    /// platforms on which it is judged), then its change to the solution.
    public static func read(_ file: URL, wrong: Bool) throws -> Variant {
        let name = file.deletingLastPathComponent().lastPathComponent + "/" + file.lastPathComponent
        let patch: Patch
        do {
            patch = try Patch(try String(contentsOf: file, encoding: .utf8))
        } catch {
            throw WorkshopError("\(name): \(error)")
        }
        var fields: [String: String] = [:]
        for line in patch.header {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].lowercased()
            if fields[key] == nil {
                fields[key] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        func list(_ field: String) -> [String] {
            (fields[field] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }
        }
        let platforms = fields["platforms"].map { _ in list("platforms").map { $0.lowercased() } }
        if wrong {
            guard let mistake = fields["wrong answer"], !mistake.isEmpty else {
                throw WorkshopError("\(name) does not start with `Wrong answer: <the mistake, in the learner's words>`")
            }
            let tests = list("caught by").map { $0.replacingOccurrences(of: "()", with: "") }
            guard !tests.isEmpty else {
                throw WorkshopError("\(name) has no `Caught by: <test function name>[, <test function name>…]` line")
            }
            return Variant(
                kind: .wrongAnswer(mistake: mistake, caughtBy: tests), file: file, platforms: platforms, patch: patch)
        }
        guard let style = fields["alternative"], !style.isEmpty else {
            throw WorkshopError("\(name) does not start with `Alternative: <the style>`")
        }
        return Variant(kind: .alternative(style: style), file: file, platforms: platforms, patch: patch)
    }

    /// Every variant of `exercise`: its solution, its stub, its alternatives and its wrong
    /// answers, in that order. Headers that cannot be read are returned as problems.
    public static func all(of exercise: Exercise) -> (variants: [Variant], problems: [String]) {
        var variants = [Variant(kind: .solution, file: exercise.solution), Variant(kind: .stub, file: exercise.stub)]
        var problems: [String] = []
        for (folder, wrong) in [(exercise.alternatives, false), (exercise.wrongAnswers, true)] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names.sorted() where name.hasSuffix(".diff") && !name.hasPrefix(".") {
                do {
                    variants.append(try read(folder.appendingPathComponent(name), wrong: wrong))
                } catch {
                    problems.append("exercise \(exercise.number): \(error)")
                }
            }
        }
        return (variants, problems)
    }

    /// Whether `judgement` is what this variant must get; if not, why, in a sentence.
    public func problem(with judgement: Judgement) -> String? {
        switch (kind, judgement.verdict) {
        case (.solution, .passes), (.alternative, .passes), (.stub, .fails): nil
        case (.solution, _), (.alternative, _): "it must pass, but it \(Self.describe(judgement))"
        case (.stub, _): "it must fail its tests cleanly (compile, then fail), but it \(Self.describe(judgement))"
        case (.wrongAnswer, .passes): "it must fail, but it passes"
        case (.wrongAnswer, .doesNotCompile): "it must compile and fail its tests, but it does not compile"
        case (.wrongAnswer(_, let caughtBy), _):
            caughtBy.contains(where: judgement.caughtBy.contains)
                ? nil
                : "it fails, but not in \(caughtBy.joined(separator: " or ")); it failed in "
                    + (judgement.caughtBy.isEmpty ? "no test" : judgement.caughtBy.sorted().joined(separator: ", "))
        }
    }

    /// What `verify` says of a variant that got what it must.
    func outcome(_ judgement: Judgement) -> String {
        var outcome = Self.describe(judgement)
        if case .wrongAnswer(_, let caughtBy) = kind {
            outcome = "fails, caught by " + caughtBy.filter(judgement.caughtBy.contains).joined(separator: ", ")
        }
        return outcome + (judgement.confirmedBy == .raceDetector ? " (no race)" : "")
    }

    static func describe(_ judgement: Judgement) -> String {
        switch judgement.verdict {
        case .passes: "passes"
        case .fails: "fails " + judgement.failures.map(\.test.functionName).joined(separator: ", ")
        case .doesNotCompile: "does not compile"
        case .crashed: "crashes"
        case .ranOutOfTime: "runs out of time"
        case .dataRace: "has a data race"
        }
    }
}
