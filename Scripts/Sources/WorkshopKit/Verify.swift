#if os(macOS) || os(Linux)
    import Foundation

    /// `verify`: on a copy of the repository, every solution and correct alternative passes
    /// its exercise's tests, every untouched stub and every wrong answer fails them (a wrong
    /// answer in one of the tests its header names).
    public struct Verifier {
        /// What `verify` prints at its end and its exit status: 0 when no problem was found, 1
        /// (with every problem, each naming its exercise and file) when one was.
        public static func conclusion(of problems: [String], seconds: Double) -> (status: Int32, lines: [String]) {
            if problems.isEmpty {
                return (0, [String(format: "verify: every expectation holds (%.0f s).", seconds)])
            }
            return (1, ["verify: \(problems.count) problem(s):"] + problems.map { "  " + $0 })
        }

        public let workshop: Workshop
        /// The copy, and its build, in the repository's ignored build folder: kept between
        /// runs so that a second `verify` builds only what changed.
        public let folder: URL
        public let limits: Limits
        public var say: (String) -> Void
        /// Asked while anything runs: true stops verify (Ctrl-C).
        public var shouldStop: () -> Bool = { false }

        public init(workshop: Workshop, folder: URL, limits: Limits, say: @escaping (String) -> Void) {
            self.workshop = workshop
            self.folder = folder
            self.limits = limits
            self.say = say
        }

        var observer: RunObserver {
            var observer = RunObserver()
            observer.shouldStop = shouldStop
            return observer
        }

        var copy: URL { folder.appendingPathComponent("playground") }

        /// Runs every check; returns the problems found (none: verify passes).
        public func run(requireShippedStubs: Bool) throws -> [String] {
            var problems: [String] = []
            var variants: [Int: [Variant]] = [:]
            for exercise in workshop.exercises {
                problems += Self.structure(of: exercise, requireShippedStub: requireShippedStubs)
                let found = Variant.all(of: exercise)
                variants[exercise.number] = found.variants.filter { $0.isJudged() }
                for variant in found.variants where !variant.isJudged() {
                    say(
                        "exercise \(exercise.number): \(variant.label): judged on "
                            + (variant.platforms ?? []).joined(separator: ", ") + " only, not here")
                }
                problems += found.problems
            }
            say("Copying the repository to \(copy.path) (your files are never touched)")
            try Self.mirror(workshop.root, to: copy, skipping: [".git", ".build", ".swiftpm", ".DS_Store"])
            let copied = try Workshop(root: copy)

            let rounds = variants.values.map(\.count).max() ?? 0
            for round in 0..<rounds {
                let batch = copied.exercises.compactMap { exercise -> (Exercise, Variant)? in
                    guard let variant = variants[exercise.number]?.dropFirst(round).first else { return nil }
                    return (exercise, variant)
                }
                problems += try check(batch, round: round + 1, of: rounds)
            }
            return problems
        }

        /// One round: each exercise of `batch` gets its variant; they are built together,
        /// then tested together; an exercise whose tests crash or hang is tested alone.
        func check(_ batch: [(exercise: Exercise, variant: Variant)], round: Int, of rounds: Int) throws -> [String] {
            say(
                "== Round \(round) of \(rounds): "
                    + batch.map { "\($0.exercise.number) \($0.variant.label)" }.joined(separator: "; "))
            for (exercise, variant) in batch {
                try Data(contentsOf: variant.file).write(to: exercise.file)
            }
            var problems: [String] = []
            var building = batch.map(\.exercise.number)
            var judgements: [Int: Judgement] = [:]
            let roundFolder = folder.appendingPathComponent("runs/round")

            // Build; an exercise that does not compile is judged so and left out.
            while !building.isEmpty {
                var request = TestRequest(
                    package: copy.appendingPathComponent("Chapters/Workshop"),
                    scratch: folder.appendingPathComponent("build"), only: building, folder: roundFolder)
                request.buildOnly = true
                let built = try runTests(request, limits: limits, observer: observer)
                if built.interrupted { throw WorkshopError("verify: stopped", status: 130) }
                if built.exitStatus == 0 { break }
                let output = CompilerOutput(console: built.console)
                if built.stoppedIn != nil { throw WorkshopError("verify: the build ran out of time") }
                let broken = building.filter { number in
                    output.errors.contains {
                        $0.file.contains("/Chapters/Workshop/\(Self.folder(of: number, in: batch))/")
                    }
                }
                guard !broken.isEmpty else {
                    let errors = output.errors.map { $0.lines[0] } + output.otherErrors
                    throw WorkshopError(
                        "verify: the build failed outside the exercises:\n" + errors.joined(separator: "\n"))
                }
                for number in broken {
                    judgements[number] = Judgement(
                        verdict: .doesNotCompile,
                        compileErrors: output.errors.filter {
                            $0.file.contains("/Chapters/Workshop/\(Self.folder(of: number, in: batch))/")
                        })
                }
                building.removeAll { broken.contains($0) }
            }
            if round == 1 { problems += try warnings(building, batch: batch) }

            // Test together; what crashed or hung is tested again alone.
            if !building.isEmpty {
                var request = TestRequest(
                    package: copy.appendingPathComponent("Chapters/Workshop"),
                    scratch: folder.appendingPathComponent("build"), only: building, folder: roundFolder)
                request.skipBuild = true
                let together = try runTests(request, limits: Limits(build: limits.build, tests: 90), observer: observer)
                if together.interrupted { throw WorkshopError("verify: stopped", status: 130) }
                for number in building {
                    let module = "Exercise\(number)Tests"
                    if together.log.runEnded {
                        judgements[number] = Self.judgement(of: module, in: together)
                    } else {
                        var alone = request
                        alone.tests = [module + "."]
                        alone.folder = folder.appendingPathComponent("runs/exercise\(number)")
                        let (judgement, observation) = try runAndJudge(alone, limits: limits, observer: observer)
                        if observation.interrupted { throw WorkshopError("verify: stopped", status: 130) }
                        judgements[number] = judgement
                    }
                }
            }

            for (exercise, variant) in batch {
                guard let judgement = judgements[exercise.number] else { continue }
                let known = Set(
                    (judgement.failures.map(\.test) + (judgement.crash?.running ?? [])
                        + (judgement.timeOut?.unfinished ?? [])).map(\.functionName)
                )
                .union(Self.testNames(of: exercise))
                if let line = variant.problemLine(exercise: exercise.number, judgement: judgement, knownTests: known) {
                    problems.append(line)
                    say("PROBLEM: " + line)
                    for failure in judgement.failures.prefix(3) {
                        say("    ✘ \(failure.test.name): " + (failure.issues.first?.explanation.first ?? ""))
                    }
                    for error in judgement.compileErrors.prefix(3) { say("    " + error.lines[0]) }
                } else {
                    var outcome = Variant.describe(judgement)
                    if case .wrongAnswer(_, let caughtBy) = variant.kind {
                        outcome =
                            "fails, caught by " + caughtBy.filter(judgement.caughtBy.contains).joined(separator: ", ")
                    }
                    say("exercise \(exercise.number): \(variant.label): \(outcome), as it should")
                }
            }
            return problems
        }

        /// The judgement of one exercise's tests in a run of several.
        static func judgement(of module: String, in run: RunObservation) -> Judgement {
            let results = run.log.results(inModule: module)
            let failures = results.filter { $0.passed == false }.map { ($0.test, run.log.issues(of: $0.test.id)) }
            let passed = results.filter { $0.passed == true }.count
            if failures.isEmpty && passed > 0 { return Judgement(verdict: .passes, passedCount: passed) }
            return Judgement(verdict: .fails, failures: failures, passedCount: passed)
        }

        /// Warnings the round's build printed for the exercises' files (in the first round: the
        /// solutions, and the tests).
        func warnings(_ numbers: [Int], batch: [(exercise: Exercise, variant: Variant)]) throws -> [String] {
            let console =
                (try? String(contentsOf: folder.appendingPathComponent("runs/round/console.txt"), encoding: .utf8))
                ?? ""
            return CompilerOutput(console: console).warnings.filter { $0.file.contains("/Chapters/Workshop/") }.map {
                "the exercises compile with a warning: \($0.lines[0])"
            }
        }

        static func folder(of number: Int, in batch: [(exercise: Exercise, variant: Variant)]) -> String {
            batch.first { $0.exercise.number == number }?.exercise.folder ?? ""
        }

        /// The test functions an exercise's test files declare (`func name(` after `@Test`).
        static func testNames(of exercise: Exercise) -> Set<String> {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: exercise.tests.path)) ?? []
            var names = Set<String>()
            for file in files where file.hasSuffix(".swift") {
                let text = (try? String(contentsOf: exercise.tests.appendingPathComponent(file), encoding: .utf8)) ?? ""
                var afterTest = false
                for line in text.split(separator: "\n") {
                    if line.contains("@Test") { afterTest = true }
                    if afterTest, let range = line.range(of: "func ") {
                        names.insert(
                            String(line[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
                        afterTest = false
                    }
                }
            }
            return names
        }

        /// What every exercise must have, whatever its variants do.
        static func structure(of exercise: Exercise, requireShippedStub: Bool) -> [String] {
            let manager = FileManager.default
            var problems: [String] = []
            for file in [exercise.stub, exercise.solution, exercise.hint, exercise.stuck, exercise.crash]
            where !manager.fileExists(atPath: file.path) {
                problems.append(
                    "exercise \(exercise.number) has no \(file.lastPathComponent) in \(exercise.reference.path)")
            }
            let tests = (try? manager.contentsOfDirectory(atPath: exercise.tests.path)) ?? []
            if !tests.contains(where: { $0.hasSuffix(".swift") }) {
                problems.append("exercise \(exercise.number) has no tests in \(exercise.tests.path)")
            }
            let scheme = (try? String(contentsOf: exercise.scheme, encoding: .utf8)) ?? ""
            for target in ["Exercise\(exercise.number)", exercise.testModule]
            where !scheme.contains("BlueprintIdentifier = \"\(target)\"") {
                problems.append(
                    "exercise \(exercise.number)'s Xcode scheme \(exercise.scheme.lastPathComponent) does not name \(target)"
                )
            }
            if requireShippedStub, (try? Data(contentsOf: exercise.file)) != (try? Data(contentsOf: exercise.stub)) {
                problems.append(
                    "\(exercise.file.path) differs from \(exercise.stub.path): the shipped stub must be the reference stub"
                )
            }
            return problems
        }

        /// Makes `destination` a copy of `source`, writing only the files that differ (so that
        /// unchanged files keep their dates and the build stays incremental) and removing what
        /// `source` no longer has. Names in `skipping` are left out at every level.
        static func mirror(_ source: URL, to destination: URL, skipping: Set<String>) throws {
            let manager = FileManager.default
            try manager.createDirectory(at: destination, withIntermediateDirectories: true)
            let names = try manager.contentsOfDirectory(atPath: source.path).filter {
                !skipping.contains($0) && !$0.hasPrefix(".build")
            }
            for stale in try manager.contentsOfDirectory(atPath: destination.path) where !names.contains(stale) {
                try manager.removeItem(at: destination.appendingPathComponent(stale))
            }
            for name in names {
                let from = source.appendingPathComponent(name)
                let to = destination.appendingPathComponent(name)
                var isFolder: ObjCBool = false
                if manager.fileExists(atPath: from.path, isDirectory: &isFolder), isFolder.boolValue {
                    try mirror(from, to: to, skipping: skipping)
                } else {
                    let data = try Data(contentsOf: from)
                    if (try? Data(contentsOf: to)) != data {
                        var isCopyFolder: ObjCBool = false
                        if manager.fileExists(atPath: to.path, isDirectory: &isCopyFolder), isCopyFolder.boolValue {
                            try manager.removeItem(at: to)
                        }
                        try data.write(to: to)
                    }
                    let permissions = try manager.attributesOfItem(atPath: from.path)[.posixPermissions]
                    if let permissions {
                        try manager.setAttributes([.posixPermissions: permissions], ofItemAtPath: to.path)
                    }
                }
            }
        }
    }
#endif
