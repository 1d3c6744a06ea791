import Foundation

#if os(Linux)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns what the runner concluded into what the learner reads: what happened, the evidence
/// (the test, the issue, the compiler's notes), the exercise's hint for what was seen, and
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
        let up = Array(repeating: "..", count: from.count - common)
        let rest = target.dropFirst(common).map(String.init)
        let joined = (up + rest).joined(separator: "/")
        return joined.isEmpty ? "." : joined
    }

    /// A command of the runner, as the learner can type it from where they are.
    public func command(_ arguments: String) -> String { "\(launcher) \(arguments)" }

    // MARK: - The explanations

    /// What the learner reads after a check of `exercise`, once the live output has shown
    /// each test as it ended. `notes` are the exercise's Stuck.md and Crash.md texts.
    public func explain(_ judgement: Judgement, of exercise: Exercise, notes: ExerciseNotes, seconds: Double?)
        -> [String]
    {
        let time = seconds.map { String(format: " (%.1f s)", $0) } ?? ""
        var lines = explainVerdict(judgement, of: exercise, notes: notes, time: time)
        switch judgement.failedConfirmation {
        case .raceDetector?:
            lines.insert(
                "The tests passed; then not in the second run, under ThreadSanitizer (which watches every memory access):",
                at: 0)
        case .again?:
            lines.insert(
                "The tests passed once, then not when run again: the answer works only some of the time (a race, or a guess of how long something takes).",
                at: 0)
        case nil:
            break
        }
        return lines
    }

    func explainVerdict(_ judgement: Judgement, of exercise: Exercise, notes: ExerciseNotes, time: String)
        -> [String]
    {
        switch judgement.verdict {
        case .passes:
            var twice =
                switch judgement.confirmedBy {
                case .raceDetector?: ", twice — the second time under ThreadSanitizer, which saw no data race"
                case .again?: ", twice"
                case nil: ""
                }
            let more = judgement.confirmationCount - judgement.passedCount
            if judgement.confirmedBy != nil, more > 0 {
                twice += ", and the contract kit's \(more == 1 ? "test" : "\(more) tests") in the second run"
            }
            var lines = [
                "✔ Exercise \(exercise.number) passes: all \(judgement.passedCount) of its tests\(twice)\(time)."
            ]
            if judgement.mutexReportsSetAside > 0 {
                lines.append(
                    "  (ThreadSanitizer's \(judgement.mutexReportsSetAside) report(s) inside Mutex.withLock were set aside: on Linux it cannot see Mutex hand the lock over. Chapters/Workshop/README.md says how they are recognised.)"
                )
            }
            return lines
        case .fails:
            let failed = judgement.failures.count
            let total = failed + judgement.passedCount
            var lines = [
                failed == 0
                    ? "✘ No test of exercise \(exercise.number) ran\(time)."
                    : "✘ Not yet\(time): \(failed) of \(total) tests fail (their messages are above)."
            ]
            lines.append("  Edit \(path(exercise.file)) (look for TODO), then check again.")
            lines.append("  Stuck? \(command("hint \(exercise.number)"))")
            return lines
        case .doesNotCompile:
            return compileErrors(judgement, of: exercise)
        case .crashed:
            return crash(judgement.crash, of: exercise, notes: notes)
        case .ranOutOfTime:
            return timeOut(judgement.timeOut, of: exercise, notes: notes)
        case .dataRace:
            return dataRace(judgement.races, failed: judgement.failures.count, of: exercise, notes: notes)
        }
    }

    func compileErrors(_ judgement: Judgement, of exercise: Exercise) -> [String] {
        var lines = ["✘ Exercise \(exercise.number) does not compile:"]
        let shown = judgement.compileErrors.prefix(4)
        for error in shown {
            lines.append("")
            // The compiler's header lines, notes included, with paths that work from here.
            lines += error.lines.map { "  " + pathsRelative(in: $0) }
        }
        if judgement.compileErrors.count > shown.count {
            lines.append("  … and \(judgement.compileErrors.count - shown.count) more errors.")
        }
        if judgement.compileErrors.isEmpty {
            lines += judgement.otherErrors.prefix(8).map { "  " + pathsRelative(in: $0) }
            if judgement.otherErrors.isEmpty { lines.append("  (the build failed without saying why)") }
        }
        lines.append("")
        if let first = judgement.compileErrors.first {
            let file = URL(fileURLWithPath: first.file)
            lines.append("  Fix the first error, in \(path(file)):\(first.line), then check again.")
        }
        lines.append("  Stuck? \(command("hint \(exercise.number)"))")
        return lines
    }

    func crash(_ crash: Judgement.Crash?, of exercise: Exercise, notes: ExerciseNotes) -> [String] {
        guard let crash else { return ["✘ The tests crashed."] }
        var lines: [String] = []
        let signal = crash.signal.map { " with \(Self.describe(signal: $0))" } ?? ""
        if let culprit = crash.culprit {
            lines.append("✘ The tests crashed\(signal), in the test “\(culprit.displayName)”.")
        } else if crash.running.isEmpty {
            lines.append("✘ The tests crashed\(signal), before any test started.")
        } else {
            lines.append("✘ The tests crashed\(signal), while these tests ran:")
            lines += crash.running.map { "    “\($0.displayName)”" }
        }
        lines += place(of: crash.backtrace, in: exercise)
        if !crash.reason.isEmpty {
            lines.append("  What the program said as it stopped:")
            lines += crash.reason.map { "    " + exercisePath(in: pathsRelative(in: $0), of: exercise) }
        }
        if let issue = crash.lastIssue {
            lines.append("  The last issue a test recorded before the crash:")
            lines += issue.explanation.map { "    " + $0 }
        }
        switch crash.reproducedAlone {
        case true?:
            lines.append("  Run alone, that test crashed again: the crash is in what it calls.")
        case false?:
            lines.append(
                "  Run again one at a time, no test crashed: it happens only when tests run together, at the same time — a race between threads."
            )
        case nil:
            break
        }
        if let signal = crash.signal, let cause = Self.cause(ofSignal: signal) {
            lines.append("  \(cause)")
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
        if let own, own == stopped {
            return ["  It stopped in your code: \(location(own))."]
        }
        var lines: [String]
        if let library = stopped.libraryName {
            lines = ["  It stopped inside \(library), in \(stopped.function)"]
        } else {
            lines = ["  It stopped in \(location(stopped))"]
        }
        if let own {
            lines[0] += ","
            lines.append("    called from your code: \(location(own)).")
        } else {
            lines[0] += " (the crash report names no line of your file)."
        }
        return lines
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
            "✘ \(tests) ThreadSanitizer saw a data race: two threads used the same memory at the same time, at least one of them writing, with nothing (a lock, a queue) between them. The tests cannot see it every time; the program can crash or lose a change any time."
        ]
        for (number, race) in races.prefix(2).enumerated() {
            if races.count > 1 { lines.append("  Race \(number + 1) of \(races.count):") }
            for (index, access) in race.accesses.prefix(2).enumerated() {
                let verb = access.isWrite ? "written" : "read"
                let who = index == 0 ? "by one thread" : "by another thread"
                guard let frame = access.place(preferring: exercise.file.path) else {
                    lines.append("    \(verb) \(who) (where, ThreadSanitizer could not tell)")
                    continue
                }
                let place = frame.file.map { "\(shown($0, of: exercise)):\(frame.line ?? 0)" } ?? "?"
                lines.append("    \(verb) \(who) at \(place), in \(frame.function)")
            }
        }
        if races.count > 2 { lines.append("  … and \(races.count - 2) more.") }
        lines.append("  Chapter \(exercise.number) explains it: \(path(exercise.chapterReadme))")
        return lines
            + ending(notes.race, titled: "A hint for exercise \(exercise.number) (Reference/Race.md):", of: exercise)
    }

    func timeOut(_ timeOut: Judgement.TimeOut?, of exercise: Exercise, notes: ExerciseNotes) -> [String] {
        guard let timeOut else { return ["✘ The check ran out of time."] }
        if timeOut.phase == .build {
            return [
                "✘ The build ran out of time and was stopped, with every process it started.",
                "  A first build compiles the chapters' libraries; on a busy machine, check again.",
            ]
        }
        var lines = ["✘ The tests ran out of time: they were stopped, with every process this check started."]
        if timeOut.unfinished.isEmpty {
            lines.append("  No test had started.")
        } else {
            lines.append("  These had not ended:")
            lines += timeOut.unfinished.map { "    “\($0.displayName)”" }
        }
        if let issue = timeOut.lastIssue {
            lines.append("  The last issue a test recorded before that:")
            lines += issue.explanation.map { "    " + $0 }
        }
        lines.append("")
        lines.append("What that means:")
        let culprit = timeOut.culprit.map { "“\($0.displayName)”" }
        if timeOut.busy == true {
            lines.append(
                "  The tests kept a processor busy to the end: a loop that never ends, waiting for a state that never comes without ever sleeping or suspending."
            )
            if let culprit, timeOut.reproducedAlone == true { lines.append("  Run alone, \(culprit) looped too.") }
        } else if timeOut.everyTestStopped {
            lines.append(
                "  Several tests stopped at once and none ended afterwards, although each of their waits has a time limit: what happens when the threads that run Swift's tasks (one per core) are all blocked, so that nothing else runs, not even those limits."
            )
            if timeOut.reproducedAlone == false {
                lines.append(
                    "  Run one at a time, each ended: they block only together, each holding a thread while it waits.")
            } else if let culprit, timeOut.reproducedAlone == true {
                lines.append("  Run alone, \(culprit) did not end either: it blocks by itself.")
            }
            lines.append(
                "  What blocks a thread: a blocking wait in async code — DispatchSemaphore.wait(), DispatchGroup.wait(), waitUntilFinished(), a lock that is never released — or a deadlock."
            )
        } else {
            lines.append(
                "  \(culprit ?? "The test") did not end while the others did: it waits for something that never happens — a blocking wait for a signal that never comes, a deadlock (a lock taken while it is held, a change announced while holding the lock its observers take), or an operation that never finishes (a missing finish()) waited for without a time limit."
            )
        }
        let specific = timeOut.busy == true ? notes.busy : notes.waiting
        let file = timeOut.busy == true ? "Busy" : "Waiting"
        return lines
            + ending(
                specific, titled: "A hint for exercise \(exercise.number) (Reference/Stuck.md, \(file)):", of: exercise)
    }

    /// A run that something outside ended (`how`: what showed it): nothing was judged.
    public static func endedFromOutside(_ how: String) -> [String] {
        [
            "  Stopped from outside: \(how). Neither this check nor Swift's runtime ends a run so: someone ran kill, the system ran out of memory, or the code called exit().",
            "  Nothing was judged: check again.",
        ]
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
        var lines: [String] = []
        if let notes { lines += ["", title] + notes.map { "  " + $0 } }
        return lines + ["", "  Stuck? \(command("hint \(exercise.number)"))"]
    }

    /// An absolute path at the start of a compiler's line, made relative to the working
    /// directory (if it names a file that exists).
    func pathsRelative(in line: String) -> String {
        let indent = line.prefix { $0 == " " }
        let rest = line.dropFirst(indent.count)
        guard rest.hasPrefix("/"), let colon = rest.firstIndex(of: ":") else { return line }
        let absolute = String(rest[..<colon])
        guard FileManager.default.fileExists(atPath: absolute) else { return line }
        return indent + Self.relativePath(absolute, from: workingDirectory.path) + rest[colon...]
    }

    /// The runtime names a file by its module and name ("Exercise10/LimitedMap.swift:34:
    /// Fatal error…"): the exercise's own file gets a path that works from here.
    func exercisePath(in line: String, of exercise: Exercise) -> String {
        let short = "Exercise\(exercise.number)/\(exercise.file.lastPathComponent):"
        guard line.hasPrefix(short) else { return line }
        return path(exercise.file) + ":" + line.dropFirst(short.count)
    }

    /// "signal 4 (SIGILL)".
    static func describe(signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE",
            SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGTERM: "SIGTERM", SIGINT: "SIGINT", SIGHUP: "SIGHUP",
        ]
        return names[signal].map { "signal \(signal) (\($0))" } ?? "signal \(signal)"
    }

    /// What a signal usually means for a Swift program.
    static func cause(ofSignal signal: Int32) -> String? {
        switch signal {
        case SIGILL, SIGTRAP:
            "That signal is how Swift stops a program on a runtime error: a Fatal error, an index out of range, a nil unwrapped with !, a failed precondition — in your code or inside Foundation."
        case SIGABRT:
            "That signal is abort(): a C library's failed assertion, or an uncaught exception."
        case SIGSEGV, SIGBUS:
            "That signal is an invalid memory access: an object used after it was freed, or memory that two threads changed at once."
        case SIGFPE:
            "That signal is an arithmetic error, such as a division by zero."
        default:
            nil
        }
    }
}

/// What an exercise's reference material says about a check that crashed, ran out of time or
/// raced: Reference/Crash.md, whose sections are each headed by what a crash must show for the
/// section to apply (a phrase of the runtime's message, or a function it stopped in);
/// Reference/Stuck.md's sections "## Waiting" (the tests waited for ever) and "## Busy" (a loop
/// kept a processor busy); Reference/Race.md, whose presence also means that a passing check
/// runs the tests again under ThreadSanitizer.
public struct ExerciseNotes: Sendable {
    public struct CrashNote: Equatable, Sendable {
        /// The words the crash's evidence must contain.
        public var evidence: String
        public var lines: [String]
    }

    public var crash: [CrashNote]
    public var waiting: [String]?
    public var busy: [String]?
    public var race: [String]?

    public init(crash: [CrashNote] = [], waiting: [String]? = nil, busy: [String]? = nil, race: [String]? = nil) {
        self.crash = crash
        self.waiting = waiting
        self.busy = busy
        self.race = race
    }

    public init(of exercise: Exercise) {
        let crashText = try? String(contentsOf: exercise.crash, encoding: .utf8)
        let stuckText = try? String(contentsOf: exercise.stuck, encoding: .utf8)
        let raceText = try? String(contentsOf: exercise.race, encoding: .utf8)
        self.init(
            crash: crashText.map { Self.sections(in: $0) } ?? [],
            waiting: stuckText.flatMap { Self.section("Waiting", in: $0) },
            busy: stuckText.flatMap { Self.section("Busy", in: $0) },
            race: raceText.map { Self.lines(of: $0) })
    }

    static func lines(of text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// Every "## <evidence>" section, with its lines.
    static func sections(in text: String) -> [CrashNote] {
        var notes: [CrashNote] = []
        for line in lines(of: text) {
            if line.hasPrefix("## ") {
                notes.append(CrashNote(evidence: line.dropFirst(3).trimmingCharacters(in: .whitespaces), lines: []))
            } else if !notes.isEmpty {
                notes[notes.count - 1].lines.append(line)
            }
        }
        return notes.map { note in
            var note = note
            while note.lines.first?.isEmpty == true { note.lines.removeFirst() }
            while note.lines.last?.isEmpty == true { note.lines.removeLast() }
            return note
        }
    }

    /// The lines under "## <name>", up to the next heading.
    static func section(_ name: String, in text: String) -> [String]? {
        sections(in: text).first { $0.evidence == name }.flatMap { $0.lines.isEmpty ? nil : $0.lines }
    }
}
