import Foundation

/// How a run of an exercise's tests ended, as the learner needs to hear it.
public enum Verdict: String, Codable, Equatable, Sendable {
    case passes
    case fails
    case doesNotCompile = "does not compile"
    case crashed
    case ranOutOfTime = "ran out of time"
    /// The tests passed, and ThreadSanitizer saw two threads touch the same memory unordered.
    case dataRace = "has a data race"
}

/// Everything a run of `swift test` left behind: its exit, what it printed, its event
/// stream, and whether the runner had to stop it.
public struct RunObservation: Sendable {
    public enum Phase: String, Sendable { case build, tests }

    /// The exit status of `swift test`; nil if the runner stopped it.
    public var exitStatus: Int32?
    /// Set when the runner stopped the run because it ran out of time in that phase.
    public var stoppedIn: Phase?
    /// Set when the learner stopped the run (Ctrl-C, or a key in `watch`).
    public var interrupted = false
    /// How the run ended, when something outside it ended it (`kill -9`, the system out of
    /// memory): then it says nothing about the answer.
    public var endedFromOutside: String?
    public var console: String
    public var log: RunLog
    /// The data races ThreadSanitizer reported (a run under it), and how many of its reports
    /// were set aside as `Mutex`'s known false reports (`DataRace.isMutexHandOff`).
    public var races: [DataRace] = []
    public var mutexReportsSetAside = 0
    /// The test binary's crash report, if it crashed.
    public var backtrace: Backtrace?

    public init(exitStatus: Int32?, stoppedIn: Phase? = nil, console: String, log: RunLog) {
        self.exitStatus = exitStatus
        self.stoppedIn = stoppedIn
        self.console = console
        self.log = log
    }

    /// What shows that something outside ended `run`, in words, if anything does: the package
    /// manager itself ended by a signal (the runner sends none while it waits for a verdict);
    /// the tests ended by one that neither Swift's runtime nor a check sends; or the tests
    /// ended before their run did with no signal and no crash report (the package manager says
    /// nothing of a SIGKILL, and Swift's runtime reports every crash).
    public static func endedFromOutside(_ run: RunObservation) -> String? {
        let signal = Judgement.signal(in: run.console)
        if let status = run.exitStatus, status > 128 {
            return "the package manager ended with \(Explainer.describe(signal: status - 128))"
        } else if let signal, [SIGKILL, SIGTERM, SIGINT, SIGHUP].contains(signal) {
            return "the tests ended with \(Explainer.describe(signal: signal))"
        } else if run.exitStatus != nil, run.stoppedIn == nil, run.log.runStarted, !run.log.runEnded, signal == nil,
            run.backtrace == nil
        {
            return "the tests ended before their run did, with neither a signal nor a crash report"
        }
        return nil
    }
}

/// What the runner concluded from one run, with the evidence each explanation needs.
public struct Judgement: Sendable {
    public var verdict: Verdict
    /// Tests that failed, each with the issues it recorded.
    public var failures: [(test: TestInfo, issues: [RecordedIssue])] = []
    public var passedCount = 0
    /// Compiler errors (with their notes), or the package manager's own errors.
    public var compileErrors: [Diagnostic] = []
    public var otherErrors: [String] = []
    public var crash: Crash?
    public var timeOut: TimeOut?
    /// The data races ThreadSanitizer reported, each once.
    public var races: [DataRace] = []
    /// A pass: how it was confirmed (a second run, or the race detector's), how many tests
    /// passed then (the contract kit's suite runs only then), and how many of ThreadSanitizer's
    /// reports were set aside as `Mutex`'s known false reports.
    public var confirmedBy: Confirmation?
    public var confirmationCount = 0
    public var mutexReportsSetAside = 0
    /// Not a pass although the first run passed: the run that confirms a pass did not.
    public var failedConfirmation: Confirmation?

    public struct Crash: Sendable {
        /// The signal that ended the test process, when the package manager reported it.
        public var signal: Int32?
        /// The runtime's reason ("Fatal error: Index out of range"), and what the process
        /// printed just before it.
        public var reason: [String]
        /// The tests running when it crashed (in parallel, several).
        public var running: [TestInfo]
        /// The last issue recorded before the crash.
        public var lastIssue: RecordedIssue?
        /// Where it crashed: the crashed thread's frames, when the runtime wrote them.
        public var backtrace: Backtrace?
    }

    public struct TimeOut: Sendable {
        public var phase: RunObservation.Phase
        /// The tests that had started and not ended.
        public var unfinished: [TestInfo]
        public var lastIssue: RecordedIssue?
    }

    /// The names of the tests that failed, crashed or did not end, and the race detector's
    /// name if it saw a race: what a wrong answer's "Caught by:" line is compared with.
    public var caughtBy: Set<String> {
        let tests = failures.map(\.test) + (crash?.running ?? []) + (timeOut?.unfinished ?? [])
        return Set(tests.map(\.functionName) + (races.isEmpty ? [] : [Variant.raceDetector]))
    }
}

extension Judgement {
    /// Decides how a run ended. The order matters: a run that did not compile never
    /// tested anything; a run stopped for time says so even if some tests failed before.
    public init(_ run: RunObservation) {
        let output = CompilerOutput(console: run.console)
        let log = run.log
        let failures = log.failed.map { ($0, log.issues(of: $0.id)) }
        let passedCount = log.passed.count

        if run.stoppedIn == .build {
            self.init(verdict: .ranOutOfTime, timeOut: TimeOut(phase: .build, unfinished: []))
            return
        }
        // No test ran and nothing crashed: the package manager failed (a link or manifest error).
        let buildFailed =
            !log.runStarted && run.stoppedIn == nil && run.exitStatus != 0 && Self.signal(in: run.console) == nil
        if !output.errors.isEmpty || buildFailed {
            self.init(verdict: .doesNotCompile, compileErrors: output.errors, otherErrors: output.otherErrors)
        } else if run.stoppedIn == .tests && !log.runEnded {
            let timeOut = TimeOut(phase: .tests, unfinished: log.unfinished, lastIssue: log.issues.last)
            self.init(verdict: .ranOutOfTime, failures: failures, passedCount: passedCount, timeOut: timeOut)
        } else if !log.runEnded {
            let crash = Crash(
                signal: Self.signal(in: run.console), reason: Self.crashReason(in: run.console),
                running: log.unfinished, lastIssue: log.issues.last, backtrace: run.backtrace)
            self.init(verdict: .crashed, failures: failures, passedCount: passedCount, crash: crash)
        } else if !run.races.isEmpty {
            self.init(verdict: .dataRace, failures: failures, passedCount: passedCount, races: Self.distinct(run.races))
        } else if !failures.isEmpty || passedCount == 0 {
            self.init(verdict: .fails, failures: failures, passedCount: passedCount)
        } else {
            self.init(verdict: .passes, passedCount: passedCount)
        }
    }

    /// The races with different pairs of places, in the order reported (ThreadSanitizer
    /// reports a pair once, but the same lines may race on several objects).
    static func distinct(_ races: [DataRace]) -> [DataRace] {
        var seen = Set<String>()
        return races.filter { race in
            let key = race.accesses.prefix(2).map { access in
                access.frames.first.map { "\($0.file ?? $0.function):\($0.line ?? 0)" } ?? ""
            }.sorted().joined(separator: "|")
            return seen.insert(key).inserted
        }
    }

    /// The signal number in the package manager's "exited with unexpected signal code 4".
    static func signal(in console: String) -> Int32? {
        guard let marker = console.range(of: "signal code ") else { return nil }
        return Int32(console[marker.upperBound...].prefix { $0.isNumber })
    }

    /// The runtime's reason for a crash, and up to three lines printed before it that are
    /// not Swift Testing's or the package manager's own output (Foundation's "***" warnings,
    /// the test's prints).
    static func crashReason(in console: String) -> [String] {
        let lines = console.split(separator: "\n").map(String.init)
        guard let fatal = lines.firstIndex(where: { $0.contains("Fatal error") || $0.hasPrefix("Crash:") }) else {
            return []
        }
        let own = ["◇", "↳", "✔", "✘", "[", "error: Process", "Build complete", "Building", "􀟈", "􀢄"]
        let before = lines[..<fatal].suffix(8).filter { line in !own.contains(where: line.hasPrefix) }
        return Array(before.suffix(3)) + [lines[fatal]]
    }
}
