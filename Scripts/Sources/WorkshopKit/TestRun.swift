#if os(macOS) || os(Linux)
    import Foundation

    /// How long a run may take, in seconds.
    public struct Limits: Sendable {
        /// The build: the first one compiles the chapters' libraries.
        public var build: Double
        /// The tests, from the moment they start.
        public var tests: Double
        /// Stops the tests when none has started, ended or recorded an issue for this long
        /// (for a run one test at a time, where that means the running test hangs).
        public var quiet: Double?

        public init(build: Double = 900, tests: Double = 20, quiet: Double? = nil) {
            self.build = build
            self.tests = tests
            self.quiet = quiet
        }
    }

    /// One `swift test` (or `swift build --build-tests`) of some of the workshop's exercises.
    public struct TestRequest: Sendable {
        /// The workshop's package and where it builds.
        public var package: URL
        public var scratch: URL
        /// The exercises the workshop's manifest lists (WORKSHOP_ONLY); every later run with
        /// `skipBuild` must name the same ones, as the test binary holds those.
        public var only: [Int]
        public var skipBuild = false
        /// `swift build --build-tests` only, no tests.
        public var buildOnly = false
        /// Test IDs to run (all if empty), and one at a time rather than in parallel.
        public var tests: [String] = []
        public var serial = false
        /// Suites to leave out (regular expressions over "Module.Suite"): a check's first run
        /// leaves out the contract kit's suite, which runs once the exercise's own tests pass.
        public var skip: [String] = []
        /// Where the console's output and the event stream are written.
        public var folder: URL
        /// Built and run under ThreadSanitizer, which reports data races (in a build folder of
        /// its own: everything is compiled with it).
        public var threadSanitizer = false

        public init(package: URL, scratch: URL, only: [Int], folder: URL) {
            self.package = package
            self.scratch = scratch
            self.only = only
            self.folder = folder
        }

        var arguments: [String] {
            var arguments = ["swift", buildOnly ? "build" : "test", "--package-path", package.path]
            arguments += ["--scratch-path", scratch.path]
            if threadSanitizer { arguments.append("--sanitize=thread") }
            if buildOnly { return arguments + ["--build-tests"] }
            arguments += ["--disable-xctest"]
            if skipBuild { arguments.append("--skip-build") }
            if serial { arguments.append("--no-parallel") }
            for test in tests { arguments += ["--filter", Self.filter(forTestID: test)] }
            for suite in skip { arguments += ["--skip", suite] }
            arguments += ["--experimental-event-stream-output", eventsFile.path]
            arguments += ["--experimental-event-stream-version", "0"]
            return arguments
        }

        var consoleFile: URL { folder.appendingPathComponent("console.txt") }
        var eventsFile: URL { folder.appendingPathComponent("events.jsonl") }
        /// Where Swift's runtime writes a crash report (the frames of the thread that crashed).
        public var backtraceFolder: URL { folder.appendingPathComponent("backtraces") }

        /// The environment of the run: WORKSHOP_ONLY for the workshop's manifest; Swift Testing's
        /// console in words (a Mac's SF Symbols otherwise), no colours; a crash report as JSON in
        /// `backtraceFolder` (threads other than the crashed one, and registers, left out: the
        /// report takes about a second); ThreadSanitizer's options.
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
                "halt_on_error=0:exitcode=0:report_signal_unsafe=0:history_size=4:log_path=\(sanitizerLogPrefix.path)"
            return environment
        }

        /// Where ThreadSanitizer writes its reports: this prefix, then ".<pid>".
        var sanitizerLogPrefix: URL { folder.appendingPathComponent("tsan") }

        /// The reports ThreadSanitizer wrote, every process's.
        func sanitizerReports() -> String {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.filter { $0.hasPrefix("tsan.") }.sorted().compactMap { name in
                try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            }.joined(separator: "\n")
        }

        /// The package manager's `--filter` takes a regular expression over
        /// "Module.Suite/function()": the test ID without its source location.
        static func filter(forTestID id: String) -> String {
            var parts = id.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count > 1, parts.last?.contains(".swift:") == true { parts.removeLast() }
            return NSRegularExpression.escapedPattern(for: parts.joined(separator: "/"))
        }
    }

    /// Whether processes kept a processor busy, from the processor time they used.
    public enum ProcessorUse {
        /// Busy: more than a quarter of the share of a processor that the machine's load leaves
        /// one process (all of one on an idle machine; on two cores at a load of 24, a twelfth).
        /// A loop gets about its share however busy the machine; processes that wait use almost
        /// nothing.
        public static func isBusy(secondsPerSecond used: Double, load: Double? = nil) -> Bool {
            used > 0.25 * fairShare(load: load ?? currentLoad())
        }

        static func fairShare(load: Double) -> Double {
            let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
            return min(1, cores / max(load, 1))
        }

        /// The system's load average over the last minute.
        static func currentLoad() -> Double {
            var loads = [Double](repeating: 0, count: 3)
            return getloadavg(&loads, 3) > 0 ? loads[0] : 1
        }
    }

    /// What a running test run tells whoever shows it, as it happens.
    public struct RunObserver {
        /// A line of the build's progress ("[45/196] Compiling …"), to show in one place.
        public var building: (String) -> Void = { _ in }
        /// The tests started; a test passed; a test recorded an issue.
        public var happened: (RunLog.Happening) -> Void = { _ in }
        /// Asked a few times a second: true stops the run (Ctrl-C, or a key in `watch`).
        public var shouldStop: () -> Bool = { false }
        /// The processes the run started, as soon as they exist (the package manager, then the
        /// test binary and its children, seen about once a second): a killed runner's next
        /// run stops those that outlive it.
        public var started: ([ProcessEntry]) -> Void = { _ in }
        /// The package manager waits for another one that uses the same build folder.
        public var waitingForAnotherBuild: (String) -> Void = { _ in }

        public init() {}
    }

    /// Runs `request` within `limits`, reading its console and event stream as they grow.
    /// Whatever happens, every process it started has ended when it returns.
    public func runTests(_ request: TestRequest, limits: Limits, observer: RunObserver) throws -> RunObservation {
        let manager = FileManager.default
        try manager.createDirectory(at: request.folder, withIntermediateDirectories: true)
        try? manager.removeItem(at: request.eventsFile)
        try? manager.removeItem(at: request.backtraceFolder)
        for name in (try? manager.contentsOfDirectory(atPath: request.folder.path)) ?? [] where name.hasPrefix("tsan.")
        {
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
        var testProcess: pid_t?
        var toldWaiting = false

        let started = Date()
        var testsStarted: Date? = request.skipBuild ? started : nil
        var lastProgress = started
        var console = Data()
        var consoleLines = LineSplitter()
        var eventLines = LineSplitter()
        var consoleHandle: FileHandle?
        var eventsHandle: FileHandle?
        var log = RunLog()
        var samples: [(time: Date, seconds: Double)] = []
        var observation: RunObservation?

        func readAvailable() {
            if consoleHandle == nil { consoleHandle = try? FileHandle(forReadingFrom: request.consoleFile) }
            if let data = try? consoleHandle?.readToEnd(), !data.isEmpty {
                console.append(data)
                for line in consoleLines.add(data) {
                    if line.hasPrefix("Build complete!") { testsStarted = testsStarted ?? Date() }
                    if line.hasPrefix("["), !request.skipBuild { observer.building(line) }
                    if line.hasPrefix("Another instance of SwiftPM"), !toldWaiting {
                        toldWaiting = true
                        observer.waitingForAnotherBuild(line)
                    }
                }
            }
            if eventsHandle == nil { eventsHandle = try? FileHandle(forReadingFrom: request.eventsFile) }
            if let data = try? eventsHandle?.readToEnd(), !data.isEmpty {
                for line in eventLines.add(data) {
                    guard let record = StreamRecord.decode(line: line) else { continue }
                    let before = (log.started.count, log.ended.count, log.issues.count)
                    for happening in log.add(record) {
                        if happening == .runStarted { testsStarted = testsStarted ?? Date() }
                        observer.happened(happening)
                    }
                    if before != (log.started.count, log.ended.count, log.issues.count) { lastProgress = Date() }
                }
            }
        }

        func observe(exitStatus: Int32?, stoppedIn: RunObservation.Phase?) -> RunObservation {
            readAvailable()
            log.add(lines: eventLines.flush())
            var busy: Bool?
            if let last = samples.last,
                let first = samples.first(where: { last.time.timeIntervalSince($0.time) <= 3.5 }),
                last.time.timeIntervalSince(first.time) >= 1
            {
                busy = ProcessorUse.isBusy(
                    secondsPerSecond: (last.seconds - first.seconds) / last.time.timeIntervalSince(first.time))
            }
            let text = String(decoding: console, as: UTF8.self)
            var observation = RunObservation(
                exitStatus: exitStatus, stoppedIn: stoppedIn, console: text,
                log: log, busyWhenStopped: stoppedIn == nil ? nil : busy)
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

        var lastSample = Date.distantPast
        while observation == nil {
            readAvailable()
            let now = Date()
            if let status = child.poll() {
                observation = observe(exitStatus: status, stoppedIn: nil)
            } else if observer.shouldStop() {
                child.stopAll()
                var stopped = observe(exitStatus: nil, stoppedIn: nil)
                stopped.interrupted = true
                observation = stopped
            } else if let testsStarted {
                if now.timeIntervalSince(lastSample) >= 1 {
                    let table = ProcessTable.snapshot()
                    let tree = ProcessTable.descendants(of: child.pid, in: table)
                    observer.started(tree)
                    seen += tree.filter { entry in !seen.contains { $0.pid == entry.pid } }
                    testProcess = testProcess ?? tree.first { $0.parent == child.pid }?.pid
                    let times = (table.filter { $0.pid == child.pid } + tree).compactMap(\.processorSeconds)
                    if !times.isEmpty { samples.append((now, times.reduce(0, +))) }
                    lastSample = now
                }
                let quiet = limits.quiet.map { now.timeIntervalSince(lastProgress) > $0 && !log.unfinished.isEmpty }
                if now.timeIntervalSince(testsStarted) > limits.tests || quiet == true {
                    let stopping = observe(exitStatus: nil, stoppedIn: .tests)
                    child.stopAll()
                    observation = stopping
                }
            } else if now.timeIntervalSince(started) > limits.build {
                child.stopAll()
                observation = observe(exitStatus: nil, stoppedIn: .build)
            }
            if observation == nil { usleep(50_000) }
        }
        return observation!
    }

    /// Swift's readable names for `names`, from the toolchain's `swift demangle` (a few
    /// seconds at most; an empty table if it cannot say).
    func demangle(_ names: [String], in folder: URL) -> [String: String] {
        let output = folder.appendingPathComponent("demangled.txt")
        guard
            let child = try? ChildProcess(
                ["swift", "demangle", "--simplified"] + names, environment: ProcessInfo.processInfo.environment,
                outputFile: output)
        else { return [:] }
        let deadline = Date(timeIntervalSinceNow: 10)
        while child.poll() == nil {
            if Date() > deadline {
                child.stopAll()
                return [:]
            }
            usleep(20_000)
        }
        return DataRace.demangledNames(in: (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }
#endif
