import Foundation

/// Turns what the runner concluded into what the learner reads: what was seen (the test, the
/// issue, the compiler's notes, where it stopped), the exercise's notes for what was seen, and
/// what to do next.
public struct Explainer: Sendable {
    /// Where the command was run: paths are printed relative to it.
    public let workingDirectory: URL
    /// How the learner called the runner (e.g. "Scripts/workshop", "../../Scripts/workshop").
    public let launcher: String

    public init(workingDirectory: URL, launcher: String) {
        self.workingDirectory = workingDirectory.standardizedFileURL
        self.launcher = launcher
    }

    /// `url` as a path that works from the working directory.
    public func path(_ url: URL) -> String {
        Self.relativePath(url.standardizedFileURL.path, from: workingDirectory.path)
    }

    /// `path` relative to `base` (both absolute), with ".." where needed; absolute when they
    /// share nothing but the root.
    public static func relativePath(_ path: String, from base: String) -> String {
        let target = path.split(separator: "/")
        let from = base.split(separator: "/")
        let common = zip(target, from).prefix { $0 == $1 }.count
        guard common > 0 else { return path }
        let joined = (Array(repeating: "..", count: from.count - common) + target.dropFirst(common).map(String.init))
            .joined(separator: "/")
        return joined.isEmpty ? "." : joined
    }

    /// A command of the runner, as the learner can type it from where they are.
    public func command(_ arguments: String) -> String { "\(launcher) \(arguments)" }

    /// What the learner reads after a check of `exercise`, once the live output has shown
    /// each test as it ended. `notes` are the exercise's Crash.md, Stuck.md and Race.md.
    public func explain(_ judgement: Judgement, of exercise: Exercise, notes: ExerciseNotes, seconds: Double)
        -> [String]
    {
        let time = String(format: " (%.1f s)", seconds)
        var lines: [String]
        switch judgement.verdict {
        case .passes:
            let more = judgement.confirmationCount - judgement.passedCount
            let kit =
                more > 0 ? ", and the contract kit's \(more == 1 ? "test" : "\(more) tests") in the second run" : ""
            let twice =
                judgement.confirmedBy == .raceDetector
                ? ", twice — the second time under ThreadSanitizer, which saw no data race" : ", twice"
            lines = [
                "✔ Exercise \(exercise.number) passes: all \(judgement.passedCount) of its tests\(twice)\(kit)\(time)."
            ]
            if judgement.mutexReportsSetAside > 0 {
                lines.append(
                    "  (\(judgement.mutexReportsSetAside) of ThreadSanitizer's reports, inside Mutex.withLock, were set aside: Chapters/Workshop/README.md says why.)"
                )
            }
            return lines
        case .fails:
            let failed = judgement.failures.count
            lines = [
                failed == 0
                    ? "✘ No test of exercise \(exercise.number) ran\(time)."
                    : "✘ Not yet\(time): \(failed) of \(failed + judgement.passedCount) tests fail (their messages are above).",
                "  Edit \(path(exercise.file)) (look for TODO), then check again.",
                "  Stuck? \(command("hint \(exercise.number)"))",
            ]
        case .doesNotCompile:
            lines = compileErrors(judgement, of: exercise)
        case .crashed:
            lines = crash(judgement.crash!, of: exercise, notes: notes)
        case .ranOutOfTime:
            lines = timeOut(judgement.timeOut!, of: exercise, notes: notes)
        case .dataRace:
            lines = dataRace(judgement.races, failed: judgement.failures.count, of: exercise, notes: notes)
        }
        switch judgement.failedConfirmation {
        case .raceDetector?: return ["The tests passed; then, in the second run, under ThreadSanitizer:"] + lines
        case .again?: return ["The tests passed once, then not when run again:"] + lines
        case nil: return lines
        }
    }

    func compileErrors(_ judgement: Judgement, of exercise: Exercise) -> [String] {
        var lines = ["✘ Exercise \(exercise.number) does not compile:"]
        // The compiler's lines, notes included, with paths that work from here.
        for error in judgement.compileErrors.prefix(4) {
            lines += [""] + error.lines.map { "  " + pathsRelative(in: $0) }
        }
        if judgement.compileErrors.count > 4 {
            lines.append("  … and \(judgement.compileErrors.count - 4) more errors.")
        }
        if judgement.compileErrors.isEmpty {
            lines += judgement.otherErrors.prefix(8).map { "  " + pathsRelative(in: $0) }
        }
        if let first = judgement.compileErrors.first {
            lines += [
                "",
                "  Fix the first error, in \(path(URL(fileURLWithPath: first.file))):\(first.line), then check again.",
            ]
        }
        return lines + ["  Stuck? \(command("hint \(exercise.number)"))"]
    }

    func crash(_ crash: Judgement.Crash, of exercise: Exercise, notes: ExerciseNotes) -> [String] {
        let signal = crash.signal.map { " with \(Self.describe(signal: $0))" } ?? ""
        var lines =
            switch crash.running.count {
            case 0: ["✘ The tests crashed\(signal), before any test started."]
            case 1: ["✘ The tests crashed\(signal), in the test “\(crash.running[0].displayName)”."]
            default:
                ["✘ The tests crashed\(signal), while these tests ran:"]
                    + crash.running.map { "    “\($0.displayName)”" }
            }
        lines += place(of: crash.backtrace, in: exercise)
        if !crash.reason.isEmpty {
            lines.append("  What the program said as it stopped:")
            lines += crash.reason.map { "    " + exercisePath(in: pathsRelative(in: $0), of: exercise) }
        }
        if let issue = crash.lastIssue {
            lines += ["  The last issue a test recorded before the crash:"] + issue.explanation.map { "    " + $0 }
        }
        // The exercise's notes, only those that what the program said or where it stopped shows.
        let evidence = (crash.reason + (crash.backtrace?.frames.map(\.function) ?? [])).joined(separator: "\n")
        let matching = notes.crash.filter { evidence.localizedCaseInsensitiveContains($0.evidence) }
        return lines
            + ending(
                matching.isEmpty ? nil : matching.flatMap(\.lines),
                titled: "What that means in exercise \(exercise.number):",
                of: exercise)
    }

    /// Where a crash happened, from its report: the frame that stopped, and the learner's own
    /// line that led there.
    func place(of backtrace: Backtrace?, in exercise: Exercise) -> [String] {
        guard let backtrace, let stopped = backtrace.crashFrame else { return [] }
        let own = backtrace.frame(inFile: exercise.file.path)
        func location(_ frame: Backtrace.Frame) -> String {
            guard let file = frame.file, let line = frame.line else { return frame.function }
            return "\(shown(file, of: exercise)):\(line), in \(frame.function)"
        }
        if let own, own == stopped { return ["  It stopped in your code: \(location(own))."] }
        let at = stopped.libraryName.map { "inside \($0), in \(stopped.function)" } ?? "in \(location(stopped))"
        guard let own else { return ["  It stopped \(at) (the crash report names no line of your file)."] }
        return ["  It stopped \(at),", "    called from your code: \(location(own))."]
    }

    /// A file a report names, as the learner can open it: the exercise's own file by its path
    /// from here (whichever copy of the repository the report came from), another one as given.
    func shown(_ file: String, of exercise: Exercise) -> String {
        if Backtrace.isSameFile(file, as: exercise.file.path) { return path(exercise.file) }
        return file.hasPrefix("/") ? path(URL(fileURLWithPath: file)) : file
    }

    func dataRace(_ races: [DataRace], failed: Int, of exercise: Exercise, notes: ExerciseNotes) -> [String] {
        let tests = failed == 0 ? "The tests pass, but" : "\(failed) test\(failed == 1 ? "" : "s") failed (above), and"
        var lines = [
            "✘ \(tests) ThreadSanitizer saw a data race: two threads used the same memory, at least one of them writing, with nothing (a lock, a queue) ordering them:"
        ]
        for (number, race) in races.prefix(2).enumerated() {
            if races.count > 1 { lines.append("  Race \(number + 1) of \(races.count):") }
            for (index, access) in race.accesses.prefix(2).enumerated() {
                let what = "\(access.isWrite ? "written" : "read") by \(index == 0 ? "one thread" : "another thread")"
                guard let frame = access.place(preferring: exercise.file.path) else {
                    lines.append("    \(what) (where, ThreadSanitizer could not tell)")
                    continue
                }
                let place = frame.file.map { "\(shown($0, of: exercise)):\(frame.line ?? 0)" } ?? "?"
                lines.append("    \(what) at \(place), in \(frame.function)")
            }
        }
        if races.count > 2 { lines.append("  … and \(races.count - 2) more.") }
        lines.append("  Chapter \(exercise.number) explains it: \(path(exercise.chapterReadme))")
        return lines
            + ending(notes.race, titled: "A hint for exercise \(exercise.number) (Reference/Race.md):", of: exercise)
    }

    func timeOut(_ timeOut: Judgement.TimeOut, of exercise: Exercise, notes: ExerciseNotes) -> [String] {
        if timeOut.phase == .build {
            return ["✘ The build ran out of time and was stopped, with every process it started."]
        }
        var lines = ["✘ The tests ran out of time: they were stopped, with every process this check started."]
        lines +=
            timeOut.unfinished.isEmpty
            ? ["  No test had started."]
            : ["  These had not ended:"] + timeOut.unfinished.map { "    “\($0.displayName)”" }
        if let issue = timeOut.lastIssue {
            lines += ["  The last issue a test recorded before that:"] + issue.explanation.map { "    " + $0 }
        }
        return lines
            + ending(notes.stuck, titled: "A hint for exercise \(exercise.number) (Reference/Stuck.md):", of: exercise)
    }

    /// A run that something outside ended (`how`: what showed it): nothing was judged.
    public static func endedFromOutside(_ how: String) -> [String] {
        ["  Stopped from outside: \(how).", "  Nothing was judged: check again."]
    }

    /// Messages as the runner shows them under their test: each line indented, at most
    /// `limit` lines.
    public static func indented(_ messages: [String], limit: Int = 16) -> [String] {
        let lines = messages.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false) }
        let shown = lines.prefix(limit).map { "      " + $0 }
        return lines.count > limit ? shown + ["      … (\(lines.count - limit) more lines)"] : shown
    }

    /// The exercise's own notes for what happened, under `title`, then the hint's command.
    func ending(_ notes: [String]?, titled title: String, of exercise: Exercise) -> [String] {
        (notes.map { ["", title] + $0.map { "  " + $0 } } ?? []) + [
            "", "  Stuck? \(command("hint \(exercise.number)"))",
        ]
    }

    /// An absolute path at the start of a compiler's line, made relative to the working
    /// directory (if it names a file that exists).
    func pathsRelative(in line: String) -> String {
        let indent = line.prefix { $0 == " " }
        let rest = line.dropFirst(indent.count)
        guard rest.hasPrefix("/"), let colon = rest.firstIndex(of: ":"),
            FileManager.default.fileExists(atPath: String(rest[..<colon]))
        else { return line }
        return indent + Self.relativePath(String(rest[..<colon]), from: workingDirectory.path) + rest[colon...]
    }

    /// The runtime names a file by its module and name ("Exercise10/LimitedMap.swift:34:
    /// Fatal error…"): the exercise's own file gets a path that works from here.
    func exercisePath(in line: String, of exercise: Exercise) -> String {
        let short = "Exercise\(exercise.number)/\(exercise.file.lastPathComponent):"
        return line.hasPrefix(short) ? path(exercise.file) + ":" + line.dropFirst(short.count) : line
    }

    /// "signal 4 (SIGILL)".
    static func describe(signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE",
            SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGTERM: "SIGTERM", SIGINT: "SIGINT", SIGHUP: "SIGHUP",
        ]
        return names[signal].map { "signal \(signal) (\($0))" } ?? "signal \(signal)"
    }
}

/// What an exercise's reference material says about a check that crashed, ran out of time or
/// raced: Reference/Crash.md, whose sections are each headed by what a crash must show for the
/// section to apply (a phrase of the runtime's message, or a function it stopped in);
/// Reference/Stuck.md; Reference/Race.md, whose presence also means that a passing check runs
/// the tests again under ThreadSanitizer.
public struct ExerciseNotes: Sendable {
    /// Crash.md's sections: the words the crash's evidence must contain, and the lines under them.
    public var crash: [(evidence: String, lines: [String])]
    public var stuck: [String]?
    public var race: [String]?

    public init(of exercise: Exercise) {
        func lines(_ file: URL) -> [String]? {
            (try? String(contentsOf: file, encoding: .utf8)).map(Self.lines(of:))
        }
        let crashText = "\n" + ((try? String(contentsOf: exercise.crash, encoding: .utf8)) ?? "")
        crash = crashText.components(separatedBy: "\n## ").dropFirst().map { section in
            let lines = section.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
            return (lines[0].trimmingCharacters(in: .whitespaces), Self.lines(of: lines.dropFirst().joined()))
        }
        stuck = lines(exercise.stuck)?.map { $0.hasPrefix("## ") ? $0.dropFirst(3) + ":" : $0 }
        race = lines(exercise.race)
    }

    /// The text's lines, without the empty ones at either end.
    static func lines(of text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }
}
