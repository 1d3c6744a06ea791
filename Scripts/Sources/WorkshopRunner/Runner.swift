#if os(macOS) || os(Linux)
    import Foundation
    import WorkshopKit

    /// The commands of `Scripts/workshop`.
    final class Runner {
        let workshop: Workshop
        let terminal: Terminal
        let explainer: Explainer
        let interruption = Interruption()
        let memory: Memory
        /// Where the workshop builds (under ThreadSanitizer: `raceScratch`), and where a run's
        /// console and event stream go.
        let scratch: URL
        let raceScratch: URL
        let runs: URL
        /// One check at a time in those folders.
        let buildLock: FolderLock
        /// How the learner called the runner, for another runner that waits for this one.
        let commandLine = "Scripts/workshop " + CommandLine.arguments.dropFirst().joined(separator: " ")
        let limits = Limits(
            build: Double(ProcessInfo.processInfo.environment["WORKSHOP_BUILD_LIMIT"] ?? "") ?? 900,
            tests: Double(ProcessInfo.processInfo.environment["WORKSHOP_TEST_LIMIT"] ?? "") ?? 20)

        /// In `watch`: q stops a running check, and `watch` then ends; other keys pressed
        /// meanwhile wait in `pendingKeys` until the check is over.
        var watchingKeys = false
        private(set) var quitRequested = false
        var pendingKeys: [Character] = []

        /// Asked a few times a second while something runs: true stops it.
        func shouldStop() -> Bool {
            if interruption.isRaised || quitRequested { return true }
            if watchingKeys, let key = terminal.key(within: 0) {
                if key == "q" || key == "Q" { quitRequested = true } else { pendingKeys.append(key) }
            }
            return quitRequested
        }

        init(workshop: Workshop, terminal: Terminal, explainer: Explainer) {
            self.workshop = workshop
            self.terminal = terminal
            self.explainer = explainer
            let build = workshop.root.appendingPathComponent(".build")
            memory = Memory(folder: build.appendingPathComponent("workshop-state"))
            scratch = build.appendingPathComponent("workshop")
            raceScratch = build.appendingPathComponent("workshop-tsan")
            runs = build.appendingPathComponent("workshop-state/runs")
            buildLock = FolderLock(folder: build.appendingPathComponent("workshop-state"))
        }

        /// Runs `command`; returns the exit status: 0 when what was asked for is done (for
        /// `check` and `next`, the exercise passes), 1 when not, 130 when interrupted.
        func perform(_ command: Command) throws -> Int32 {
            switch command {
            case .help:
                terminal.say(Command.usage)
                return 0
            case .list:
                list()
                return 0
            case .check(let number):
                let exercise = workshop.exercise(number)!
                let verdict = try check(exercise)
                if interruption.isRaised { return 130 }
                terminal.say()
                terminal.say("Progress: \(progressBar(verdicts()))")
                if verdict == .passes { sayNext(after: exercise) }
                return verdict == .passes ? 0 : 1
            case .next:
                return try next()
            case .watch(let number):
                return try Watch(runner: self, start: number).run()
            case .hint(let number):
                hint(workshop.exercise(number)!)
                return 0
            case .solution(let number):
                try solution(workshop.exercise(number)!)
                return 0
            case .reset(let number):
                try reset(workshop.exercise(number)!)
                return 0
            case .restore(let number):
                return try restore(workshop.exercise(number)!)
            case .verify(let numbers):
                return try verify(only: numbers)
            case .sync:
                let changed = try Generated.write(in: workshop)
                terminal.say(
                    changed.isEmpty ? "Everything that follows from the exercises' folders is up to date." : "")
                for line in changed { terminal.say(line) }
                return 0
            case .variant(let number, let name, let save):
                return try variant(workshop.exercise(number)!, name: name, save: save)
            case .mutants(let numbers, let list, let save, let only):
                return try mutants(numbers, list: list, save: save, only: only)
            case .equivalent(let number, let name, let reason):
                let exercise = workshop.exercise(number)!
                try EquivalentMutants.record(name, because: reason, of: exercise)
                terminal.say("Recorded in \(explainer.path(EquivalentMutants.file(of: exercise))).")
                return 0
            }
        }

        // MARK: - Checking

        /// Builds and tests `exercise` alone, showing each test as it ends, then what the
        /// result means; a pass is confirmed by a second run (under ThreadSanitizer for the
        /// exercises about shared state). Remembers the verdict.
        @discardableResult
        func check(_ exercise: Exercise, header: Bool = true) throws -> Verdict? {
            try refuseAFolderNamedWorkshop()
            if header {
                terminal.say("Exercise \(exercise.number) — \(exercise.title)")
                terminal.say("Checking \(explainer.path(exercise.file))")
            }
            guard try takeBuildLock() else {
                terminal.say("  Stopped while waiting.")
                return nil
            }
            defer { buildLock.unlock() }
            var request = TestRequest(
                package: workshop.package, scratch: scratch, only: [exercise.number],
                folder: runs.appendingPathComponent("check"))
            request.skip = [exercise.contractSuite]
            let started = Date()
            let firstRaceBuild = !FileManager.default.fileExists(atPath: raceScratch.path)
            terminal.status("  Building …")
            let (judgement, observation) = try runCheck(
                request, raceScratch: exercise.checksForRaces ? raceScratch : nil, limits: limits,
                observer: observer(showingPasses: true), overlapping: true,
                diagnosing: { [terminal] count in
                    terminal.say(
                        "  … running the \(count) tests that did not end again, one at a time, to find where it happens"
                    )
                },
                confirming: { [terminal] confirmation in
                    switch confirmation {
                    case .raceDetector:
                        terminal.say(
                            "  … they pass; checking for data races: the tests again, under ThreadSanitizer"
                                + (firstRaceBuild ? " (this first time, it builds the chapters' libraries for it)" : "")
                        )
                    case .again:
                        terminal.say("  … they pass; running them once more, to be sure")
                    }
                    terminal.status("  Running …")
                },
                confirmationObserver: observer(showingPasses: false))
            terminal.clearStatus()
            if observation.interrupted {
                terminal.say("  Stopped (with every process this check started).")
                return nil
            }
            if let how = observation.endedFromOutside {
                for line in Explainer.endedFromOutside(how) { terminal.say(line) }
                return nil
            }
            terminal.say()
            let seconds = Date().timeIntervalSince(started)
            for line in explainer.explain(judgement, of: exercise, notes: ExerciseNotes(of: exercise), seconds: seconds)
            {
                terminal.say(line)
            }
            try memory.remember(judgement.verdict, of: exercise)
            return judgement.verdict
        }

        /// The package manager names a package after its folder: a clone in a folder named
        /// "workshop" has the name of the workshop's own package (Chapters/Workshop), which then
        /// cannot use it ("product 'TestSupport' … not found in package"). Say so plainly.
        func refuseAFolderNamedWorkshop() throws {
            guard workshop.root.lastPathComponent.lowercased() == "workshop" else { return }
            throw WorkshopError(
                """
                this clone's folder is named "\(workshop.root.lastPathComponent)", like the workshop's own package \
                (Chapters/Workshop): Swift's package manager then takes one for the other, and the exercises do not \
                build. Rename the folder (or clone again into another name), then run this again.
                """)
        }

        /// What a run shows as it goes: each test when it ends, with the messages of its issues
        /// under it (a confirming run shows only the tests that fail).
        func observer(showingPasses: Bool) -> RunObserver {
            var observer = RunObserver()
            observer.building = { [terminal] line in
                terminal.status("  Building " + (line.split(separator: " ").first.map(String.init) ?? "") + " …")
            }
            observer.happened = { [terminal] happening in
                switch happening {
                case .runStarted:
                    terminal.clearStatus()
                case .ended(let test, let passed, let issues):
                    if passed {
                        if showingPasses { terminal.say("  ✔ \(test.displayName)") }
                    } else {
                        terminal.say("  ✘ \(test.displayName)")
                        for line in Explainer.indented(issues.flatMap(\.explanation)) { terminal.say(line) }
                    }
                case .issueOutsideTest(let issue):
                    terminal.say("  ✘ (outside a test)")
                    for line in Explainer.indented(issue.explanation) { terminal.say(line) }
                }
            }
            observer.shouldStop = { [unowned self] in shouldStop() }
            observer.started = { [buildLock] in buildLock.record($0) }
            observer.waitingForAnotherBuild = { [terminal] _ in
                terminal.clearStatus()
                terminal.say(
                    "  The package manager waits for another build that uses .build/workshop (a `swift build` or `swift test` run there by hand?)"
                )
            }
            return observer
        }

        /// Takes `lock` (by default the workshop's build folder's), waiting, and saying for whom,
        /// while another runner holds it; then stops what a killed runner left running. False if
        /// the learner stopped the wait.
        func takeBuildLock(_ lock: FolderLock? = nil) throws -> Bool {
            let lock = lock ?? buildLock
            if try !lock.tryLock(as: commandLine) {
                let who =
                    lock.holder().map { holder in
                        let time = DateFormatter.localizedString(
                            from: holder.since, dateStyle: .none, timeStyle: .medium)
                        return "`\(holder.command)` (process \(holder.pid), since \(time))"
                    } ?? "another run of Scripts/workshop"
                terminal.say("  \(who) is using \(explainer.path(lock.folder)): waiting for it to end… (Ctrl-C stops)")
                while try !lock.tryLock(as: commandLine) {
                    if shouldStop() { return false }
                    usleep(200_000)
                }
                terminal.say("  … it ended.")
            }
            let left = lock.stopLeftovers()
            if !left.isEmpty {
                terminal.say(
                    "  A run that did not end normally (killed?) left \(left.count) process\(left.count == 1 ? "" : "es") running (\(left.map(String.init).joined(separator: ", "))): stopped."
                )
            }
            return true
        }

        /// What each exercise's last check said, if nothing changed since (nil otherwise).
        func verdicts() -> [Verdict?] {
            workshop.exercises.map { memory.verdict(of: $0) }
        }

        func isUntouched(_ exercise: Exercise) -> Bool {
            (try? Data(contentsOf: exercise.file)) == (try? Data(contentsOf: exercise.stub))
        }

        /// The first exercise after `exercise` (in order, then from the start) that does not
        /// pass yet.
        func unfinished(after exercise: Exercise?) -> Exercise? {
            let all = workshop.exercises
            let start =
                exercise.flatMap { current in all.firstIndex { $0.number == current.number } }.map { $0 + 1 } ?? 0
            return (all[start...] + all[..<start]).first { memory.verdict(of: $0) != .passes }
        }

        func sayNext(after exercise: Exercise) {
            if let next = unfinished(after: exercise) {
                terminal.say("Next: \(explainer.command("check \(next.number)"))  (\(next.title))")
            } else {
                terminal.say("Every exercise passes: the workshop is done.")
            }
        }

        // MARK: - Commands

        func list() {
            var rows = [["#", "Status", "Chapter", "File to edit"]]
            for exercise in workshop.exercises {
                let status: String
                switch memory.verdict(of: exercise) {
                case .passes?: status = "✔ passes"
                case let verdict?: status = "✘ " + verdict.rawValue
                case nil: status = isUntouched(exercise) ? "○ to do" : "… changed, not checked"
                }
                let title = exercise.title.count > 40 ? exercise.title.prefix(39) + "…" : Substring(exercise.title)
                rows.append([String(exercise.number), status, String(title), explainer.path(exercise.file)])
            }
            for line in columns(rows) { terminal.say(line) }
            terminal.say()
            terminal.say("Progress: \(progressBar(verdicts()))")
            if let next = unfinished(after: nil) {
                terminal.say("Next: \(explainer.command("check \(next.number)")), or \(explainer.command("watch"))")
            }
        }

        /// Checks the exercises in order and stops at the first one that does not pass.
        func next() throws -> Int32 {
            for exercise in workshop.exercises {
                if memory.verdict(of: exercise) == .passes { continue }
                if isUntouched(exercise) && memory.verdict(of: exercise) == nil {
                    terminal.say("Exercise \(exercise.number) — \(exercise.title): not started yet.")
                    sayWhereToWork(exercise)
                    terminal.say("Progress: \(progressBar(verdicts()))")
                    return 1
                }
                let verdict = try check(exercise)
                if interruption.isRaised { return 130 }
                terminal.say()
                if verdict == .passes { continue }
                sayWhereToWork(exercise)
                terminal.say("Progress: \(progressBar(verdicts()))")
                return 1
            }
            terminal.say("Every exercise passes: the workshop is done.  Progress: \(progressBar(verdicts()))")
            return 0
        }

        func sayWhereToWork(_ exercise: Exercise) {
            terminal.say("  Open \(explainer.path(exercise.file)):\(todoLine(exercise)) (look for TODO)")
            terminal.say("  Read \(explainer.path(exercise.chapterReadme))")
            terminal.say(
                "  Then: \(explainer.command("check \(exercise.number)")), or \(explainer.command("watch \(exercise.number)")) to check on every save"
            )
        }

        /// The line of the first TODO in the exercise's file (1 if none).
        func todoLine(_ exercise: Exercise) -> Int {
            let text = (try? String(contentsOf: exercise.file, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            return (lines.firstIndex { $0.contains("TODO") } ?? 0) + 1
        }

        func hint(_ exercise: Exercise) {
            terminal.say("Exercise \(exercise.number) — \(exercise.title): a hint")
            terminal.say()
            terminal.say((try? String(contentsOf: exercise.hint, encoding: .utf8)) ?? "(no hint)")
        }

        func solution(_ exercise: Exercise) throws {
            let stub = try String(contentsOf: exercise.stub, encoding: .utf8)
            let solution = try String(contentsOf: exercise.solution, encoding: .utf8)
            terminal.say(
                "Exercise \(exercise.number) — \(exercise.title): the reference solution, as a diff against the stub")
            terminal.say("(apply it to \(explainer.path(exercise.file)) by hand; its tests then pass)")
            terminal.say()
            let diff = unifiedDiff(
                from: stub, to: solution, oldName: "stub: \(explainer.path(exercise.file))", newName: "solution")
            for line in diff { terminal.say(line) }
        }

        func reset(_ exercise: Exercise) throws {
            let file = explainer.path(exercise.file)
            guard !isUntouched(exercise) else {
                terminal.say("\(file) is already the untouched stub.")
                return
            }
            let kept = try memory.keep(try Data(contentsOf: exercise.file), of: exercise)
            try Data(contentsOf: exercise.stub).write(to: exercise.file)
            terminal.say("Exercise \(exercise.number) is back to its stub: \(file)")
            terminal.say("Your version is kept in \(explainer.path(kept))")
            terminal.say("\(explainer.command("restore \(exercise.number)")) brings it back.")
        }

        func restore(_ exercise: Exercise) throws -> Int32 {
            guard let newest = memory.keptVersions(of: exercise).last else {
                terminal.say(
                    "No version of exercise \(exercise.number) was kept: \(explainer.command("reset \(exercise.number)")) keeps one."
                )
                return 1
            }
            let current = try Data(contentsOf: exercise.file)
            let target = try Data(contentsOf: newest)
            if current == target {
                terminal.say("\(explainer.path(exercise.file)) is already that version.")
                return 0
            }
            // What is in the file now is kept too, unless it is the untouched stub.
            if !isUntouched(exercise) { try memory.keep(current, of: exercise) }
            try target.write(to: exercise.file)
            terminal.say(
                "Exercise \(exercise.number) is back to your version of \(newest.lastPathComponent.prefix(19)):")
            terminal.say("  \(explainer.path(exercise.file))")
            let count = memory.keptVersions(of: exercise).count
            terminal.say(
                "Kept versions: \(count) (at most \(Memory.keptVersions)), in \(explainer.path(newest.deletingLastPathComponent()))"
            )
            return 0
        }

        /// For the workshop's authors: puts a variant into the exercise's file, or saves the
        /// file's change to the solution as that variant.
        func variant(_ exercise: Exercise, name: String, save: Bool) throws -> Int32 {
            var relative = name.hasSuffix(".diff") ? name : name + ".diff"
            if !relative.contains("/") { relative = "WrongAnswers/" + relative }
            let file = exercise.directory.appendingPathComponent(relative)
            let wrong = relative.hasPrefix("WrongAnswers/")
            let solution = try String(contentsOf: exercise.solution, encoding: .utf8)
            if save {
                let header =
                    (try? Variant.read(file, wrong: wrong))?.patch?.header
                    ?? (wrong
                        ? ["Wrong answer: <the mistake, in the learner's words>", "Caught by: <test function>", ""]
                        : ["Alternative: <the style>", ""])
                let current = try String(contentsOf: exercise.file, encoding: .utf8)
                guard current != solution else {
                    terminal.say("\(explainer.path(exercise.file)) is the solution: there is no change to save.")
                    return 1
                }
                let text = Patch.text(
                    header: header, from: solution, to: current, oldName: "Reference/Solution.swift",
                    newName: relative.replacingOccurrences(of: ".diff", with: ".swift"))
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try text.write(to: file, atomically: true, encoding: .utf8)
                terminal.say("Saved \(explainer.path(file)): its change to the solution.")
                if header.first?.contains("<") == true { terminal.say("Fill in its header, then run verify.") }
                return 0
            }
            let variant = try Variant.read(file, wrong: wrong)
            let source = try variant.source(solution: solution)
            if !isUntouched(exercise) { try memory.keep(try Data(contentsOf: exercise.file), of: exercise) }
            try source.write(to: exercise.file, atomically: true, encoding: .utf8)
            terminal.say("\(explainer.path(exercise.file)) is now \(variant.label).")
            terminal.say(
                "Check it with \(explainer.command("check \(exercise.number)")); save a change to it with \(explainer.command("variant \(exercise.number) \(relative) --save"))."
            )
            return 0
        }

        /// For the workshop's authors: the mutants of the solutions, checked; the scores.
        func mutants(_ numbers: [Int], list: Bool, save: Bool, only: String?) throws -> Int32 {
            let chosen = numbers.isEmpty ? workshop.exercises : numbers.compactMap(workshop.exercise)
            var run = MutationRun(
                workshop: workshop, folder: workshop.root.appendingPathComponent(".build/workshop-mutants"),
                say: { [terminal] in terminal.say($0) })
            run.shouldStop = { [unowned self] in shouldStop() }
            let lock = FolderLock(folder: run.folder)
            if !list {
                guard try takeBuildLock(lock) else { return 130 }
                run.started = { lock.record($0) }
            }
            defer { lock.unlock() }
            let copies = list ? [] : try run.prepare()
            var scores: [MutationScore] = []
            for exercise in chosen {
                let solution = try String(contentsOf: exercise.solution, encoding: .utf8)
                let mutants = Mutant.all(of: solution).filter { only.map($0.name.contains) ?? true }
                let listed = EquivalentMutants.read(exercise)
                terminal.say(
                    "Exercise \(exercise.number): \(mutants.count) mutants"
                        + (list
                            ? "" : ", \(copies.count) at a time (each checked as `check \(exercise.number)` checks)"))
                for problem in listed.problems { terminal.say("  Reference/EquivalentMutants.md: \(problem)") }
                if list {
                    for mutant in mutants {
                        let equivalent = mutant.isRewrite || listed.reasons[mutant.name] != nil
                        terminal.say("  \(equivalent ? "equivalent " : "")\(mutant.name)")
                    }
                    continue
                }
                let started = Date()
                guard let results = try run.run(exercise.number, mutants: mutants, copies: copies) else { continue }
                var score = MutationScore(exercise: exercise.number, results: results, listed: listed)
                score.seconds = Date().timeIntervalSince(started)
                for line in score.report(solution: solution) { terminal.say(line) }
                scores.append(score)
            }
            if save, !scores.isEmpty {
                let page = workshop.package.appendingPathComponent("README.md")
                try MutationScore.readme(try String(contentsOf: page, encoding: .utf8), with: scores)
                    .write(to: page, atomically: true, encoding: .utf8)
                terminal.say("Wrote the scores into \(explainer.path(page)).")
            }
            let clean =
                scores.count == chosen.count
                && scores.allSatisfy { $0.survivors.isEmpty && $0.rejectedEquivalents.isEmpty }
            return list || clean ? 0 : 1
        }

        func verify(only numbers: [Int]) throws -> Int32 {
            var verifier = Verifier(
                workshop: workshop, folder: workshop.root.appendingPathComponent(".build/workshop-verify"),
                limits: Limits(build: limits.build, tests: 60), say: { [terminal] in terminal.say($0) })
            verifier.shouldStop = { [unowned self] in shouldStop() }
            let lock = FolderLock(folder: verifier.folder)
            guard try takeBuildLock(lock) else { return 130 }
            defer { lock.unlock() }
            verifier.started = { lock.record($0) }
            let started = Date()
            verifier.only = numbers
            let problems = try verifier.run(requireShippedStubs: ProcessInfo.processInfo.environment["CI"] == "true")
            terminal.say()
            let conclusion = Verifier.conclusion(of: problems, seconds: Date().timeIntervalSince(started))
            for line in conclusion.lines { terminal.say(line) }
            return conclusion.status
        }
    }
#endif
