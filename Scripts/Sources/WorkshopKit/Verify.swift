#if os(macOS) || os(Linux)
    import AsyncOperations  // Locked, the lock chapter 3's base comes with
    import Foundation

    /// `verify`: on a copy of the repository, every solution and correct alternative passes
    /// its exercise's check, and every untouched stub and every wrong answer fails it — a wrong
    /// answer in one of the tests its header names, and every failing test with a message that
    /// names a section of the hint. The verdicts are the ones `check N` reaches: each
    /// exercise's tests run in a process of their own, and a pass is confirmed by a second
    /// run (under ThreadSanitizer for the exercises about shared state).
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
        /// The copy, and its builds, in the repository's ignored build folder: kept between
        /// runs so that a second `verify` builds only what changed.
        public let folder: URL
        public let limits: Limits
        public var say: (String) -> Void
        /// Asked while anything runs: true stops verify (Ctrl-C).
        public var shouldStop: () -> Bool = { false }
        /// Told of every process verify starts (so that a killed verify's next run stops them).
        public var started: ([ProcessEntry]) -> Void = { _ in }
        /// How many exercises are tested at once, each in a process of its own.
        public var width = 2
        /// The exercises to verify; all when empty.
        public var only: [Int] = []

        public init(workshop: Workshop, folder: URL, limits: Limits, say: @escaping (String) -> Void) {
            self.workshop = workshop
            self.folder = folder
            self.limits = limits
            self.say = say
        }

        var observer: RunObserver {
            var observer = RunObserver()
            observer.shouldStop = shouldStop
            observer.started = started
            return observer
        }

        var copy: URL { folder.appendingPathComponent("playground") }
        var build: URL { folder.appendingPathComponent("build") }
        var raceBuild: URL { folder.appendingPathComponent("build-tsan") }

        /// One variant of one exercise, ready to be tried: the file it puts in place.
        struct Trial {
            let exercise: Exercise
            let variant: Variant
            let source: String
        }

        /// Runs every check; returns the problems found (none: verify passes).
        public func run(requireShippedStubs: Bool) throws -> [String] {
            var problems = Generated.problems(in: workshop)
            var trials: [Int: [Trial]] = [:]
            for exercise in workshop.exercises where only.isEmpty || only.contains(exercise.number) {
                problems += Self.structure(of: exercise, requireShippedStub: requireShippedStubs)
                let found = Variant.all(of: exercise)
                problems += found.problems
                let solution = (try? String(contentsOf: exercise.solution, encoding: .utf8)) ?? ""
                var list: [Trial] = []
                for variant in Self.ordered(found.variants, racesChecked: exercise.checksForRaces) {
                    guard variant.isJudged() else {
                        say(
                            "exercise \(exercise.number): \(variant.label): judged on "
                                + (variant.platforms ?? []).joined(separator: ", ") + " only, not here")
                        continue
                    }
                    do {
                        list.append(
                            Trial(exercise: exercise, variant: variant, source: try variant.source(solution: solution)))
                    } catch {
                        problems.append("exercise \(exercise.number), \(error)")
                    }
                }
                trials[exercise.number] = list
            }
            say("Copying the repository to \(copy.path) (your files are never touched)")
            try Self.mirror(workshop.root, to: copy, skipping: [".git", ".build", ".swiftpm", ".DS_Store"])
            let copied = try Workshop(root: copy)

            let rounds = trials.values.map(\.count).max() ?? 0
            for round in 0..<rounds {
                let batch = copied.exercises.compactMap { exercise -> Trial? in
                    guard let trial = trials[exercise.number]?.dropFirst(round).first else { return nil }
                    return Trial(exercise: exercise, variant: trial.variant, source: trial.source)
                }
                problems += try check(batch, round: round + 1, of: rounds)
            }
            return problems
        }

        /// The solution, the alternatives and the wrong answers that only the race detector
        /// catches first — they need its build, which then serves the fewest rounds — then the
        /// stub and the other wrong answers.
        static func ordered(_ variants: [Variant], racesChecked: Bool) -> [Variant] {
            func rank(_ variant: Variant) -> Int {
                switch variant.kind {
                case .solution: 0
                case .alternative: 1
                case .wrongAnswer(_, let caughtBy): caughtBy.contains(Variant.raceDetector) ? 2 : 4
                case .stub: 3
                }
            }
            return variants.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
                .map(\.element)
        }

        /// One round: each exercise of `batch` gets its variant; they are built together, then
        /// each exercise's tests run in a process of their own, `width` at a time; a pass is
        /// confirmed as `check` confirms it.
        func check(_ batch: [Trial], round: Int, of rounds: Int) throws -> [String] {
            say(
                "== Round \(round) of \(rounds): "
                    + batch.map { "\($0.exercise.number) \($0.variant.label)" }.joined(separator: "; "))
            for trial in batch {
                try Data(trial.source.utf8).write(to: trial.exercise.file)
            }
            var judgements: [Int: Judgement] = [:]
            let built = try buildAll(batch.map(\.exercise), scratch: build, race: false, judgements: &judgements)

            let first = try test(built, built: built, scratch: build, race: false, name: "round")
            for (number, judgement) in first { judgements[number] = judgement }

            // Confirm the passes: again, or under ThreadSanitizer.
            let passed = built.filter { judgements[$0.number]?.verdict == .passes }
            let racing = passed.filter(\.checksForRaces)
            let plain = passed.filter { !$0.checksForRaces }
            var confirmations: [Int: Judgement] = [:]
            for (number, judgement) in try test(plain, built: built, scratch: build, race: false, name: "again") {
                confirmations[number] = judgement
            }
            if !racing.isEmpty {
                var raceJudgements: [Int: Judgement] = [:]
                let raceBuilt = try buildAll(racing, scratch: raceBuild, race: true, judgements: &raceJudgements)
                for (number, judgement) in raceJudgements { confirmations[number] = judgement }
                for (number, judgement) in try test(
                    raceBuilt, built: raceBuilt, scratch: raceBuild, race: true, name: "race")
                {
                    confirmations[number] = judgement
                }
            }
            for (number, confirmation) in confirmations {
                guard var judgement = judgements[number] else { continue }
                if confirmation.verdict == .passes {
                    judgement.confirmedBy =
                        built.first { $0.number == number }?.checksForRaces == true ? .raceDetector : .again
                } else {
                    judgement = confirmation
                    judgement.failedConfirmation =
                        built.first { $0.number == number }?.checksForRaces == true ? .raceDetector : .again
                }
                judgements[number] = judgement
            }

            var problems: [String] = []
            for trial in batch {
                guard let judgement = judgements[trial.exercise.number] else { continue }
                let found = problemsOf(trial, judgement: judgement)
                for line in found { say("PROBLEM: " + line) }
                if !found.isEmpty {
                    for failure in judgement.failures.prefix(3) {
                        say("    ✘ \(failure.test.name): " + (failure.issues.first?.explanation.first ?? ""))
                    }
                    for error in judgement.compileErrors.prefix(3) { say("    " + error.lines[0]) }
                } else {
                    var outcome = Variant.describe(judgement)
                    if case .wrongAnswer(_, let caughtBy) = trial.variant.kind {
                        outcome =
                            "fails, caught by " + caughtBy.filter(judgement.caughtBy.contains).joined(separator: ", ")
                    }
                    if judgement.confirmedBy == .raceDetector { outcome += " (no race)" }
                    say("exercise \(trial.exercise.number): \(trial.variant.label): \(outcome), as it should")
                }
                problems += found
            }
            return problems
        }

        /// What is wrong with `judgement` for `trial`: the verdict, a failing test with no hint,
        /// a race that names no line of the exercise's file.
        func problemsOf(_ trial: Trial, judgement: Judgement) -> [String] {
            let exercise = trial.exercise
            var problems: [String] = []
            if let line = trial.variant.problemLine(exercise: exercise.number, judgement: judgement) {
                problems.append(line)
            }
            if judgement.verdict != .passes {
                for failure in judgement.failures
                where !failure.issues.contains(where: { $0.explanation.contains { $0.contains("(hint: \"") } }) {
                    let said = failure.issues.first?.explanation.first ?? "(no message)"
                    problems.append(
                        "exercise \(exercise.number), \(trial.variant.label): \(failure.test.functionName) fails with no hint: \(said)"
                    )
                }
            }
            for race in judgement.races
            where !race.accesses.contains(where: {
                $0.frames.contains { $0.file?.hasSuffix(exercise.file.lastPathComponent) == true }
            }) {
                let places = race.accesses.compactMap { $0.place(preferring: exercise.file.path) }
                    .map {
                        "\($0.function) \($0.file.map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""):\($0.line ?? 0)"
                    }
                problems.append(
                    "exercise \(exercise.number), \(trial.variant.label): a data race outside the exercise's file: "
                        + places.joined(separator: " / "))
            }
            return problems
        }

        /// Builds the exercises (their tests included) in `scratch`; those that do not compile
        /// are judged so and left out. Returns those that built.
        func buildAll(_ exercises: [Exercise], scratch: URL, race: Bool, judgements: inout [Int: Judgement]) throws
            -> [Exercise]
        {
            var building = exercises
            while !building.isEmpty {
                var request = TestRequest(
                    package: copy.appendingPathComponent("Chapters/Workshop"), scratch: scratch,
                    only: building.map(\.number), folder: folder.appendingPathComponent("runs/build"))
                request.buildOnly = true
                request.threadSanitizer = race
                let built = try runTests(request, limits: limits, observer: observer)
                if built.interrupted { throw WorkshopError("verify: stopped", status: 130) }
                if built.stoppedIn != nil { throw WorkshopError("verify: the build ran out of time") }
                let output = CompilerOutput(console: built.console)
                if !race { problems(warnings: output, of: building).forEach(say) }
                if built.exitStatus == 0 { return building }
                let broken = building.filter { exercise in
                    output.errors.contains { $0.file.contains("/Chapters/Workshop/\(exercise.folder)/") }
                }
                guard !broken.isEmpty else {
                    let errors = output.errors.map { $0.lines[0] } + output.otherErrors
                    throw WorkshopError(
                        "verify: the build failed outside the exercises:\n" + errors.joined(separator: "\n"))
                }
                for exercise in broken {
                    judgements[exercise.number] = Judgement(
                        verdict: .doesNotCompile,
                        compileErrors: output.errors.filter {
                            $0.file.contains("/Chapters/Workshop/\(exercise.folder)/")
                        })
                }
                building.removeAll { exercise in broken.contains { $0.number == exercise.number } }
            }
            return []
        }

        /// Warnings in the exercises' files: verify fails on them (lines to say; the round's
        /// problems do not include them, as each round would repeat them).
        func problems(warnings output: CompilerOutput, of exercises: [Exercise]) -> [String] {
            output.warnings.filter { $0.file.contains("/Chapters/Workshop/") }.map {
                "PROBLEM: the exercises compile with a warning: \($0.lines[0])"
            }
        }

        /// Each exercise's tests in a process of its own (what `check` runs), `width` at a
        /// time; what crashed or hung is run again one test at a time, as `check` does.
        func test(_ exercises: [Exercise], built: [Exercise], scratch: URL, race: Bool, name: String) throws
            -> [Int: Judgement]
        {
            let results = Locked<[Int: Result<Judgement, any Error>]>([:])
            let jobs = exercises.map { exercise in
                {
                    var request = TestRequest(
                        package: copy.appendingPathComponent("Chapters/Workshop"), scratch: scratch,
                        only: built.map(\.number),
                        folder: folder.appendingPathComponent("runs/\(name)/exercise\(exercise.number)"))
                    request.tests = [exercise.testModule + "."]  // the binary holds every exercise built
                    // The first run leaves the contract kit's suite to the run that confirms a pass.
                    if name == "round" { request.skip = [exercise.contractSuite] }
                    request.skipBuild = true
                    request.threadSanitizer = race
                    var stretched = limits
                    if race { stretched.tests *= 3 }
                    let outcome = Result {
                        let (judgement, observation) = try runAndJudge(request, limits: stretched, observer: observer)
                        if observation.interrupted { throw WorkshopError("verify: stopped", status: 130) }
                        if let how = observation.endedFromOutside {
                            throw WorkshopError("verify: stopped from outside (\(how)); run verify again")
                        }
                        return judgement
                    }
                    results.withLock { $0[exercise.number] = outcome }
                }
            }
            runConcurrently(jobs.count, width: width) { _, index in jobs[index]() }
            var judgements: [Int: Judgement] = [:]
            for (number, outcome) in results.withLock({ $0 }) { judgements[number] = try outcome.get() }
            return judgements
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
            if Workshop.swiftFiles(tests).isEmpty {
                problems.append("exercise \(exercise.number) has no tests in \(exercise.tests.path)")
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
                !skipping.contains($0) && !$0.hasPrefix(".build") && !$0.hasPrefix(".#")
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
