import Foundation

/// How long a run may take, in seconds: the build (the first one compiles the chapters'
/// libraries), and the tests from the moment they start.
public struct Limits: Sendable {
    public var build: Double
    public var tests: Double

    public init(build: Double = 900, tests: Double = 20) {
        self.build = build
        self.tests = tests
    }
}

/// One `swift test` of some of the workshop's exercises.
struct TestRequest: Sendable {
    /// The workshop's package and where it builds.
    var package: URL
    var scratch: URL
    /// The exercises the workshop's manifest lists (WORKSHOP_ONLY).
    var only: [Int]
    /// Where the console's output and the event stream are written.
    var folder: URL
    var skipBuild = false
    /// Suites to leave out (regular expressions over "Module.Suite").
    var skip: [String] = []
    /// Built and run under ThreadSanitizer, which reports data races (in a build folder of
    /// its own: everything is compiled with it).
    var threadSanitizer = false

    var arguments: [String] {
        var arguments = ["swift", "test", "--package-path", package.path, "--scratch-path", scratch.path]
        if threadSanitizer { arguments.append("--sanitize=thread") }
        if skipBuild { arguments.append("--skip-build") }
        for suite in skip { arguments += ["--skip", suite] }
        return arguments + [
            "--disable-xctest", "--experimental-event-stream-output", eventsFile.path,
            "--experimental-event-stream-version", "0",
        ]
    }

    var consoleFile: URL { folder.appendingPathComponent("console.txt") }
    var eventsFile: URL { folder.appendingPathComponent("events.jsonl") }
    /// Where Swift's runtime writes a crash report (the frames of the thread that crashed).
    var backtraceFolder: URL { folder.appendingPathComponent("backtraces") }

    /// The environment of the run: WORKSHOP_ONLY for the workshop's manifest; Swift Testing's
    /// console in words (a Mac's SF Symbols otherwise), no colours; a crash report as JSON in
    /// `backtraceFolder` (only the crashed thread: the report takes about a second);
    /// ThreadSanitizer's options.
    func environment(base: [String: String]) -> [String: String] {
        var environment = base
        environment["WORKSHOP_ONLY"] = only.map(String.init).joined(separator: ",")
        environment["SWT_SF_SYMBOLS_ENABLED"] = "0"
        environment["NO_COLOR"] = "1"
        environment["SWIFT_BACKTRACE"] =
            threadSanitizer
            ? "enable=no"
            : "enable=yes,interactive=no,color=no,threads=crashed,registers=none,images=none,"
                + "sanitize=no,format=json,output-to=\(backtraceFolder.path)"
        // Every race, each once, and the run goes on (its tests' verdicts still count); the
        // reports go to files, one per process, so that those of an exit test's child (which
        // Swift Testing does not show) are read too, and a race does not make a child that
        // must exit normally look as if it crashed.
        environment["TSAN_OPTIONS"] =
            "halt_on_error=0:exitcode=0:report_signal_unsafe=0:history_size=4:"
            + "log_path=\(folder.appendingPathComponent("tsan").path)"
        return environment
    }

    /// The reports ThreadSanitizer wrote ("tsan.<pid>"), every process's.
    func sanitizerReports() -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasPrefix("tsan.") }.sorted().compactMap { name in
            try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }.joined(separator: "\n")
    }
}

/// What a running test run tells whoever shows it, as it happens.
public struct RunObserver {
    /// A line of the build's progress ("[45/196] Compiling …").
    public var building: (String) -> Void = { _ in }
    /// The tests started; a test ended; an issue was recorded outside a test.
    public var happened: (RunLog.Happening) -> Void = { _ in }
    /// Asked a few times a second: true stops the run (Ctrl-C, or a key in `watch`).
    public var shouldStop: () -> Bool = { false }
    /// The processes the run started, as soon as they exist (the package manager, then the
    /// test binary and its children, seen about once a second): a killed runner's next
    /// run stops those that outlive it.
    public var started: ([ProcessEntry]) -> Void = { _ in }

    public init() {}
}

/// Runs `request` within `limits`, reading its console and event stream as they grow.
/// Whatever happens, every process it started has ended when it returns.
func runTests(_ request: TestRequest, limits: Limits, observer: RunObserver) throws -> RunObservation {
    let manager = FileManager.default
    try manager.createDirectory(at: request.folder, withIntermediateDirectories: true)
    for name in (try? manager.contentsOfDirectory(atPath: request.folder.path)) ?? []
    where name.hasPrefix("tsan.") || name == "backtraces" || name == "events.jsonl" {
        try? manager.removeItem(at: request.folder.appendingPathComponent(name))
    }
    try manager.createDirectory(at: request.backtraceFolder, withIntermediateDirectories: true)
    let environment = request.environment(base: ProcessInfo.processInfo.environment)
    let child = try ChildProcess(request.arguments, environment: environment, outputFile: request.consoleFile)
    // Whatever the run started that still runs when it returns is stopped: also what outlived
    // a package manager that someone else killed.
    var seen: [ProcessEntry] = []
    defer {
        child.stopAll()
        ProcessTable.stop(seen.map { ($0.pid, $0.started) })
    }
    observer.started(ProcessTable.snapshot().filter { $0.pid == child.pid })

    let started = Date()
    var testsStarted: Date? = request.skipBuild ? started : nil
    var (console, consoleLines, eventLines, log) = (Data(), LineSplitter(), LineSplitter(), RunLog())
    var (consoleHandle, eventsHandle): (FileHandle?, FileHandle?)
    func read() {
        consoleHandle = consoleHandle ?? (try? FileHandle(forReadingFrom: request.consoleFile))
        if let data = try? consoleHandle?.readToEnd(), !data.isEmpty {
            console.append(data)
            for line in consoleLines.add(data) {
                if line.hasPrefix("Build complete!") { testsStarted = testsStarted ?? Date() }
                if line.hasPrefix("[") { observer.building(line) }
            }
        }
        eventsHandle = eventsHandle ?? (try? FileHandle(forReadingFrom: request.eventsFile))
        if let data = try? eventsHandle?.readToEnd(), !data.isEmpty {
            for record in eventLines.add(data).compactMap(StreamRecord.decode(line:)) {
                for happening in log.add(record) {
                    if happening == .runStarted { testsStarted = testsStarted ?? Date() }
                    observer.happened(happening)
                }
            }
        }
    }

    var (exitStatus, stoppedIn, interrupted) = (Int32?.none, RunObservation.Phase?.none, false)
    var testProcess: pid_t?
    var lastLook = Date.distantPast
    while true {
        read()
        if let status = child.poll() {
            exitStatus = status
            break
        }
        if observer.shouldStop() {
            interrupted = true
            break
        }
        let now = Date()
        if let testsStarted {
            if now.timeIntervalSince(lastLook) >= 1 {
                let tree = ProcessTable.descendants(of: child.pid, in: ProcessTable.snapshot())
                observer.started(tree)
                seen += tree.filter { entry in !seen.contains { $0.pid == entry.pid } }
                testProcess = testProcess ?? tree.first { $0.parent == child.pid }?.pid
                lastLook = now
            }
            if now.timeIntervalSince(testsStarted) > limits.tests {
                stoppedIn = .tests
                break
            }
        } else if now.timeIntervalSince(started) > limits.build {
            stoppedIn = .build
            break
        }
        usleep(50_000)
    }
    child.stopAll()
    read()
    log.add(lines: eventLines.flush())
    let text = String(decoding: console, as: UTF8.self)
    var observation = RunObservation(exitStatus: exitStatus, stoppedIn: stoppedIn, console: text, log: log)
    observation.interrupted = interrupted
    if request.threadSanitizer {
        let races = DataRace.reports(in: text + "\n" + request.sanitizerReports()).map { race in
            race.demangled { names in demangle(names, in: request.folder) }
        }
        observation.races = races.filter { race in
            !race.isMutexHandOff { try? String(contentsOfFile: $0, encoding: .utf8) }
        }
        observation.mutexReportsSetAside = races.count - observation.races.count
    }
    // The test binary's own report: its exit tests' children may have crashed on purpose.
    observation.backtrace = Backtrace.report(in: request.backtraceFolder, pid: testProcess)
    observation.endedFromOutside = RunObservation.endedFromOutside(observation)
    return observation
}

/// Swift's readable names for `names`, from the toolchain's `swift demangle` (an empty
/// table if it cannot say within 10 s).
func demangle(_ names: [String], in folder: URL) -> [String: String] {
    let output = folder.appendingPathComponent("demangled.txt")
    guard
        let child = try? ChildProcess(
            ["swift", "demangle", "--simplified"] + names, environment: ProcessInfo.processInfo.environment,
            outputFile: output)
    else { return [:] }
    let deadline = Date(timeIntervalSinceNow: 10)
    while child.poll() == nil, Date() < deadline { usleep(20_000) }
    child.stopAll()
    return DataRace.demangledNames(in: (try? String(contentsOf: output, encoding: .utf8)) ?? "")
}
