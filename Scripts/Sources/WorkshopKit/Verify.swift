import Foundation

/// `verify`: every solution and correct alternative passes its exercise's check, and every
/// untouched stub and every wrong answer fails it — a wrong answer in one of the tests its
/// header names, and every failing test with a message that names a section of the hint.
/// Each version is checked as `check N` checks it, in copies of the repository.
public enum Verifier {
    /// Verifies exercises `numbers` (every one when empty); returns the problems found, each
    /// naming its exercise and file (none: verify passes).
    public static func run(
        _ workshop: Workshop, only numbers: [Int], in copies: Copies, limits: Limits, observer: RunObserver,
        requireShippedStubs: Bool, say: @escaping (String) -> Void
    ) -> [String] {
        var problems = Generated.problems(in: workshop)
        var trials: [(exercise: Exercise, variant: Variant, source: String)] = []
        for exercise in workshop.exercises where numbers.isEmpty || numbers.contains(exercise.number) {
            let missing = [
                exercise.stub, exercise.solution, exercise.hint, exercise.stuck, exercise.crash, exercise.tests,
            ]
            .filter { !FileManager.default.fileExists(atPath: $0.path) }
            problems += missing.map { "exercise \(exercise.number) has no \($0.lastPathComponent)" }
            if requireShippedStubs, (try? Data(contentsOf: exercise.file)) != (try? Data(contentsOf: exercise.stub)) {
                problems.append("\(exercise.file.path) is not Reference/Stub.swift: the stub must ship untouched")
            }
            let variants = Variant.all(of: exercise)
            problems += variants.problems
            let solution = (try? String(contentsOf: exercise.solution, encoding: .utf8)) ?? ""
            for variant in variants.variants {
                guard variant.isJudged() else {
                    say(
                        "exercise \(exercise.number): \(variant.label): judged on \((variant.platforms ?? []).joined(separator: ", ")) only"
                    )
                    continue
                }
                do {
                    trials.append((exercise, variant, try variant.source(solution: solution)))
                } catch {
                    problems.append("exercise \(exercise.number), \(error)")
                }
            }
        }
        say(
            "Checking \(trials.count) versions as `check` does, \(copies.places.count) at a time, in copies of the repository"
        )
        func found(_ index: Int, _ outcome: Result<Checked, any Error>) -> [String] {
            let (exercise, variant, _) = trials[index]
            let name = "exercise \(exercise.number), \(variant.label)"
            switch outcome {
            case .failure(let error): return ["\(name): \(error)"]
            case .success(let checked) where checked.observation.interrupted: return []
            case .success(let checked) where checked.observation.endedFromOutside != nil:
                return ["\(name): stopped from outside (\(checked.observation.endedFromOutside!)): verify it again"]
            case .success(let checked):
                return Self.problems(of: variant, in: exercise, judgement: checked.judgement)
            }
        }
        let outcomes = copies.check(
            trials.map { ($0.exercise.number, $0.source) }, limits: limits, observer: observer
        ) {
            index, outcome, place in
            let lines = found(index, outcome)
            for line in lines { say("PROBLEM: " + line) }
            if !lines.isEmpty, let kept = keepRuns(of: trials[index].variant, in: trials[index].exercise, from: place) {
                say("    its runs (consoles, event streams, ThreadSanitizer's reports) are kept in \(kept.path)")
            }
            guard case .success(let checked) = outcome, !checked.observation.interrupted else { return }
            let (exercise, variant, _) = trials[index]
            if lines.isEmpty {
                say(
                    "exercise \(exercise.number), \(variant.label): \(variant.outcome(checked.judgement)), as it should"
                )
            }
            for failure in lines.isEmpty ? [] : checked.judgement.failures.prefix(3) {
                say("    ✘ \(failure.test.name): " + (failure.issues.first?.explanation.first ?? ""))
            }
        }
        return problems + outcomes.enumerated().flatMap { index, outcome in outcome.map { found(index, $0) } ?? [] }
    }

    /// Copies the runs of a version found wrong out of its copy, which the next version's
    /// check overwrites: a verdict that comes only now and then (a race the detector saw in
    /// most runs) can then be read. Nil if they could not be copied.
    public static func keepRuns(of variant: Variant, in exercise: Exercise, from place: CheckPlace) -> URL? {
        let manager = FileManager.default
        let kept = place.folder.deletingLastPathComponent().appendingPathComponent("problems")
            .appendingPathComponent(
                "exercise\(exercise.number)-\(variant.file.deletingPathExtension().lastPathComponent)")
        try? manager.removeItem(at: kept)
        do {
            try manager.createDirectory(at: kept.deletingLastPathComponent(), withIntermediateDirectories: true)
            try manager.copyItem(at: place.folder.appendingPathComponent("runs"), to: kept)
            return kept
        } catch {
            return nil
        }
    }

    /// What is wrong with `judgement` for `variant`, each naming the exercise and the file:
    /// the verdict, a failing test with no hint, a race that names no line of the exercise's file.
    public static func problems(of variant: Variant, in exercise: Exercise, judgement: Judgement) -> [String] {
        var problems = variant.problem(with: judgement).map { [$0] } ?? []
        for failure in judgement.failures
        where !failure.issues.contains(where: { $0.explanation.contains { $0.contains("(hint: \"") } }) {
            let said = failure.issues.first?.explanation.first ?? "(no message)"
            problems.append("\(failure.test.functionName) fails with no hint: \(said)")
        }
        for race in judgement.races
        where !race.accesses.contains(where: {
            $0.frames.contains { $0.file?.hasSuffix(exercise.file.lastPathComponent) == true }
        }) {
            let places = race.accesses.compactMap { $0.place(preferring: exercise.file.path) }.map {
                "\($0.function) \(URL(fileURLWithPath: $0.file ?? "").lastPathComponent):\($0.line ?? 0)"
            }
            problems.append("a data race outside the exercise's file: " + places.joined(separator: " / "))
        }
        return problems.map { "exercise \(exercise.number), \(variant.label): \($0)" }
    }

    /// What `verify` (or `mutants`) prints at its end and its exit status: 0 when no problem
    /// was found, 1 (with every problem, each naming its exercise and file) when one was.
    public static func conclusion(of problems: [String], seconds: Double, command: String = "verify")
        -> (status: Int32, lines: [String])
    {
        if problems.isEmpty {
            return (0, [String(format: "\(command): every expectation holds (%.0f s).", seconds)])
        }
        return (1, ["\(command): \(problems.count) problem(s):"] + problems.map { "  " + $0 })
    }
}
