import Foundation
import WorkshopKit

/// A run recorded from the real workshop (Scripts/workshop check N against a variant of the
/// exercise), in Fixtures/<name>: the console of `swift test`, its event stream, and how the
/// run ended (run.json: exit status, or the phase in which the runner stopped it).
///
/// The recorded runs, and the variant each was made with:
/// - pass5: exercise 5's reference solution.
/// - fail2: exercise 2's untouched stub.
/// - compile2: exercise 2's solution with `willChangeValue()` (a missing argument).
/// - crash10index / crash10nil: exercise 10's solution reading one slot too many / leaving
///   the slots empty.
/// - crash3cancel: exercise 3's solution with a `cancel()` that calls `finish()`.
/// - stuck10pool: exercise 10 limited by a semaphore that each child waits on.
/// - stuck7loop: exercise 7's `resolveInput` looping.
/// - stuck7one: exercise 7's `resolveInput` waiting only when there are two providers.
/// - crash1conditionlock: exercise 1's `main()` waiting with an `NSConditionLock`, which traps in
///   Linux's Foundation (with the crash report the runtime wrote: backtrace.json).
/// - race1flag: exercise 1's `main()` polling a plain `Bool` that the work sets: ThreadSanitizer's
///   run (console.txt has its reports).
/// - race8slots: exercise 8's collector with only the count under the lock: the report that
///   ThreadSanitizer wrote for the race test's child process (tsan-report.txt).
/// - race8mutex: exercise 8 answered correctly with a `Mutex` (source.swift): ThreadSanitizer's
///   false reports inside `withLock` on Linux, with the names `swift demangle` made of them
///   (demangled.txt). race8mutexcount: the slots in a `Mutex`, the count outside any lock.
struct Fixture {
    let name: String

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The repository's root, for tests that read its documents.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    struct RunFile: Decodable {
        var exitStatus: Int32?
        var stoppedIn: String?
    }

    func text(_ file: String) -> String? {
        try? String(contentsOf: Self.folder.appendingPathComponent(name).appendingPathComponent(file), encoding: .utf8)
    }

    /// The run, as the runner observed it.
    var observation: RunObservation {
        let run = text("run.json").flatMap { try? JSONDecoder().decode(RunFile.self, from: Data($0.utf8)) }
        var log = RunLog()
        log.add(lines: (text("events.jsonl") ?? "").split(separator: "\n").map(String.init))
        var observation = RunObservation(
            exitStatus: run?.exitStatus, stoppedIn: run?.stoppedIn.flatMap(RunObservation.Phase.init(rawValue:)),
            console: text("console.txt") ?? "", log: log)
        observation.backtrace = text("backtrace.json").flatMap { Backtrace(json: Data($0.utf8)) }
        return observation
    }

    /// The judgement the runner reaches.
    var judgement: Judgement { Judgement(observation) }
}

/// An exercise as the runner finds it in the repository.
func repositoryExercise(_ number: Int) throws -> Exercise {
    let workshop = try Workshop(root: Fixture.root)
    guard let exercise = workshop.exercise(number) else { throw WorkshopError("no exercise \(number)") }
    return exercise
}

/// What the learner reads, as one text.
func explanation(_ judgement: Judgement, of exercise: Exercise, notes: ExerciseNotes? = nil) -> String {
    let explainer = Explainer(workingDirectory: Fixture.root, launcher: "Scripts/workshop")
    return explainer.explain(judgement, of: exercise, notes: notes ?? ExerciseNotes(of: exercise), seconds: 1)
        .joined(separator: "\n")
}
