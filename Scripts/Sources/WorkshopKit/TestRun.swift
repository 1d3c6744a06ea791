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
        /// Where the console's output and the event stream are written.
        public var folder: URL

        public init(package: URL, scratch: URL, only: [Int], folder: URL) {
            self.package = package
            self.scratch = scratch
            self.only = only
            self.folder = folder
        }

        var arguments: [String] {
            var arguments = ["swift", buildOnly ? "build" : "test", "--package-path", package.path]
            arguments += ["--scratch-path", scratch.path]
            if buildOnly { return arguments + ["--build-tests"] }
            arguments += ["--disable-xctest"]
            if skipBuild { arguments.append("--skip-build") }
            if serial { arguments.append("--no-parallel") }
            for test in tests { arguments += ["--filter", Self.filter(forTestID: test)] }
            arguments += ["--experimental-event-stream-output", eventsFile.path]
            arguments += ["--experimental-event-stream-version", "0"]
            return arguments
        }

        var consoleFile: URL { folder.appendingPathComponent("console.txt") }
        var eventsFile: URL { folder.appendingPathComponent("events.jsonl") }

        /// The package manager's `--filter` takes a regular expression over
        /// "Module.Suite/function()": the test ID without its source location.
        static func filter(forTestID id: String) -> String {
            var parts = id.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count > 1, parts.last?.contains(".swift:") == true { parts.removeLast() }
            return NSRegularExpression.escapedPattern(for: parts.joined(separator: "/"))
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

        public init() {}
    }

    /// Runs `request` within `limits`, reading its console and event stream as they grow.
    /// Whatever happens, every process it started has ended when it returns.
    public func runTests(_ request: TestRequest, limits: Limits, observer: RunObserver) throws -> RunObservation {
        let manager = FileManager.default
        try manager.createDirectory(at: request.folder, withIntermediateDirectories: true)
        try? manager.removeItem(at: request.eventsFile)
        var environment = ProcessInfo.processInfo.environment
        environment["WORKSHOP_ONLY"] = request.only.map(String.init).joined(separator: ",")
        // Words instead of SF Symbols and colours (a Mac), and no slow symbolicated backtrace
        // on a crash: the runtime's own line says enough here.
        environment["SWT_SF_SYMBOLS_ENABLED"] = "0"
        environment["NO_COLOR"] = "1"
        environment["SWIFT_BACKTRACE"] = "enable=no"
        let child = try ChildProcess(request.arguments, environment: environment, outputFile: request.consoleFile)
        defer { child.stopAll() }

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
                busy = (last.seconds - first.seconds) / last.time.timeIntervalSince(first.time) > 0.5
            }
            return RunObservation(
                exitStatus: exitStatus, stoppedIn: stoppedIn, console: String(decoding: console, as: UTF8.self),
                log: log, busyWhenStopped: stoppedIn == nil ? nil : busy,
                testSeconds: testsStarted.map { Date().timeIntervalSince($0) })
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
                if now.timeIntervalSince(lastSample) >= 1, let seconds = child.processorSeconds() {
                    samples.append((now, seconds))
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
#endif
