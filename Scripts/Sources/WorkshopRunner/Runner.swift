import Foundation
import WorkshopKit

/// The commands of `Scripts/workshop`.
final class Runner {
    let workshop: Workshop
    let terminal: Terminal
    let explainer: Explainer
    let interruption = Interruption()
    let memory: Memory
    /// Where a check builds and writes its runs, and what the runner remembers: .build/workshop.
    let place: CheckPlace
    /// One check at a time there; one `verify` or `mutants` at a time in the copies.
    let buildLock: FolderLock
    let copies: URL
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
        let folder = workshop.root.appendingPathComponent(".build/workshop")
        (memory, buildLock) = (Memory(folder: folder), FolderLock(folder: folder))
        place = CheckPlace(workshop: workshop, folder: folder)
        copies = workshop.root.appendingPathComponent(".build/workshop-copies")
    }

    /// Runs `command`; returns the exit status: 0 when what was asked for is done (for
    /// `check` and `next`, the exercise passes), 1 when not, 130 when interrupted.
    func perform(_ command: Command) throws -> Int32 {
        switch command {
        case .help:
            terminal.say(Command.usage)
        case .list:
            list()
        case .check(let number):
            let exercise = workshop.exercise(number)!
            let verdict = try check(exercise)
            if interruption.isRaised { return 130 }
            terminal.say("\nProgress: \(progressBar(verdicts()))")
            if verdict == .passes { sayNext(after: exercise) }
            return verdict == .passes ? 0 : 1
        case .next:
            return try next()
        case .watch(let number):
            return try Watch(runner: self, start: number).run()
        case .hint(let number):
            hint(workshop.exercise(number)!)
        case .solution(let number):
            try solution(workshop.exercise(number)!)
        case .reset(let number):
            terminal.say(try reset(workshop.exercise(number)!))
        case .verify(let numbers):
            return try inCopies { copies, observer in
                Verifier.run(
                    workshop, only: numbers, in: copies, limits: Limits(build: limits.build, tests: 60),
                    observer: observer, requireShippedStubs: ProcessInfo.processInfo.environment["CI"] == "true",
                    say: { [terminal] in terminal.say($0) })
            }
        case .sync:
            let changed = try Generated.write(in: workshop)
            terminal.say(
                changed.isEmpty ? "Everything that follows from the exercises' folders is up to date." : "")
            terminal.say(changed)
        case .mutants(let numbers, let list, let save, let only):
            return try mutants(numbers, list: list, save: save, only: only)
        case .equivalent(let number, let name, let reason):
            let exercise = workshop.exercise(number)!
            try EquivalentMutants.record(name, because: reason, of: exercise)
            terminal.say("Recorded in \(explainer.path(EquivalentMutants.file(of: exercise))).")
        }
        return 0
    }

    // MARK: - Checking

    /// Builds and tests `exercise` alone, showing each test as it ends, then what the
    /// result means; a pass is confirmed by a second run (under ThreadSanitizer for the
    /// exercises about shared state). Remembers the verdict.
    @discardableResult
    func check(_ exercise: Exercise, header: Bool = true) throws -> Verdict? {
        // The package manager names a package after its folder: a clone in a folder named
        // "workshop" takes the name of the workshop's own package, which then cannot use it.
        guard workshop.root.lastPathComponent.lowercased() != "workshop" else {
            throw WorkshopError(
                "this clone's folder is named \"\(workshop.root.lastPathComponent)\", like the workshop's own package: "
                    + "Swift's package manager then takes one for the other. Rename the folder, then run this again."
            )
        }
        if header {
            terminal.say("Exercise \(exercise.number) — \(exercise.title)")
            terminal.say("Checking \(explainer.path(exercise.file))")
        }
        guard try take(buildLock) else {
            terminal.say("  Stopped while waiting.")
            return nil
        }
        defer { buildLock.unlock() }
        let started = Date()
        let firstRaceBuild = !FileManager.default.fileExists(atPath: place.raceScratch.path)
        terminal.status("  Building …")
        let (judgement, observation) = try WorkshopKit.check(
            exercise.number, at: place, limits: limits, observer: observer(showingPasses: true), overlapping: true,
            confirming: { [terminal] confirmation in
                terminal.say(
                    confirmation == .again
                        ? "  … they pass; running them once more, to be sure"
                        : "  … they pass; checking for data races: the tests again, under ThreadSanitizer"
                            + (firstRaceBuild ? " (this first time, it builds the chapters' libraries for it)" : "")
                )
                terminal.status("  Running …")
            },
            confirmationObserver: observer(showingPasses: false))
        terminal.clearStatus()
        if observation.interrupted {
            terminal.say("  Stopped (with every process this check started).")
            return nil
        }
        if let how = observation.endedFromOutside {
            terminal.say(Explainer.endedFromOutside(how))
            return nil
        }
        terminal.say()
        let seconds = Date().timeIntervalSince(started)
        terminal.say(explainer.explain(judgement, of: exercise, notes: ExerciseNotes(of: exercise), seconds: seconds))
        try memory.remember(judgement.verdict, of: exercise)
        return judgement.verdict
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
            case .ended(let test, true, _):
                if showingPasses { terminal.say("  ✔ \(test.displayName)") }
            case .ended(let test, false, let issues):
                terminal.say("  ✘ \(test.displayName)")
                terminal.say(Explainer.indented(issues.flatMap(\.explanation)))
            case .issueOutsideTest(let issue):
                terminal.say("  ✘ (outside a test)")
                terminal.say(Explainer.indented(issue.explanation))
            }
        }
        observer.shouldStop = { [unowned self] in shouldStop() }
        observer.started = { [buildLock] in buildLock.record($0) }
        return observer
    }

    /// Takes `lock`, waiting, and saying for whom, while another runner holds it; then stops
    /// what a killed runner left running. False if the learner stopped the wait.
    func take(_ lock: FolderLock) throws -> Bool {
        if try !lock.tryLock(as: commandLine) {
            let who = lock.holder() ?? "another run of Scripts/workshop"
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
                "  A run that was killed left processes running (\(left.map(String.init).joined(separator: ", "))): stopped."
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
        guard let next = unfinished(after: exercise) else {
            return terminal.say("Every exercise passes: the workshop is done.")
        }
        terminal.say("Next: \(explainer.command("check \(next.number)"))  (\(next.title))")
    }

    // MARK: - Commands

    func list() {
        var rows = [["#", "Status", "Chapter", "File to edit"]]
        for exercise in workshop.exercises {
            let status =
                switch memory.verdict(of: exercise) {
                case .passes?: "✔ passes"
                case let verdict?: "✘ " + verdict.rawValue
                case nil: isUntouched(exercise) ? "○ to do" : "… changed, not checked"
                }
            let title = exercise.title.count > 40 ? exercise.title.prefix(39) + "…" : Substring(exercise.title)
            rows.append([String(exercise.number), status, String(title), explainer.path(exercise.file)])
        }
        terminal.say(columns(rows))
        terminal.say("\nProgress: \(progressBar(verdicts()))")
        if let next = unfinished(after: nil) {
            terminal.say("Next: \(explainer.command("check \(next.number)")), or \(explainer.command("watch"))")
        }
    }

    /// Checks the exercises in order and stops at the first one that does not pass.
    func next() throws -> Int32 {
        for exercise in workshop.exercises where memory.verdict(of: exercise) != .passes {
            if isUntouched(exercise) && memory.verdict(of: exercise) == nil {
                terminal.say("Exercise \(exercise.number) — \(exercise.title): not started yet.")
            } else {
                let verdict = try check(exercise)
                if interruption.isRaised { return 130 }
                terminal.say()
                if verdict == .passes { continue }
            }
            terminal.say("  Open \(explainer.path(exercise.file)):\(todoLine(exercise)) (look for TODO)")
            terminal.say("  Read \(explainer.path(exercise.chapterReadme))")
            terminal.say(
                "  Then: \(explainer.command("check \(exercise.number)")), or \(explainer.command("watch \(exercise.number)")) to check on every save"
            )
            terminal.say("Progress: \(progressBar(verdicts()))")
            return 1
        }
        terminal.say("Every exercise passes: the workshop is done.  Progress: \(progressBar(verdicts()))")
        return 0
    }

    /// The line of the first TODO in the exercise's file (1 if none).
    func todoLine(_ exercise: Exercise) -> Int {
        let lines = ((try? String(contentsOf: exercise.file, encoding: .utf8)) ?? "").split(separator: "\n")
        return (lines.firstIndex { $0.contains("TODO") } ?? 0) + 1
    }

    func hint(_ exercise: Exercise) {
        terminal.say("Exercise \(exercise.number) — \(exercise.title): a hint\n")
        terminal.say((try? String(contentsOf: exercise.hint, encoding: .utf8)) ?? "(no hint)")
    }

    func solution(_ exercise: Exercise) throws {
        let stub = try String(contentsOf: exercise.stub, encoding: .utf8)
        let solution = try String(contentsOf: exercise.solution, encoding: .utf8)
        terminal.say(
            "Exercise \(exercise.number) — \(exercise.title): the reference solution, as a diff against the stub")
        terminal.say("(apply it to \(explainer.path(exercise.file)) by hand; its tests then pass)\n")
        terminal.say(
            unifiedDiff(
                from: stub, to: solution, oldName: "stub: \(explainer.path(exercise.file))", newName: "solution"))
    }

    /// Puts the stub back, keeping the learner's version; returns what to tell them.
    func reset(_ exercise: Exercise) throws -> [String] {
        let file = explainer.path(exercise.file)
        guard !isUntouched(exercise) else { return ["\(file) is already the untouched stub."] }
        let kept = try memory.keep(try Data(contentsOf: exercise.file), of: exercise)
        try Data(contentsOf: exercise.stub).write(to: exercise.file)
        return [
            "Exercise \(exercise.number) is back to its stub: \(file)",
            "Your version is kept; to bring it back: cp \(explainer.path(kept)) \(file)",
        ]
    }

    // MARK: - For the workshop's authors

    /// Runs `work` on the copies of the repository (made up to date first), holding their
    /// lock; then says what `work` returned: the problems found.
    func inCopies(command: String = "verify", _ work: (Copies, RunObserver) throws -> [String]) throws -> Int32 {
        let lock = FolderLock(folder: copies)
        guard try take(lock) else { return 130 }
        defer { lock.unlock() }
        let started = Date()
        terminal.say("Copying the repository to \(explainer.path(copies)) (your files are never touched)")
        var observer = RunObserver()
        observer.shouldStop = { [unowned self] in shouldStop() }
        observer.started = { lock.record($0) }
        let problems = try work(try Copies(of: workshop, in: copies), observer)
        if interruption.isRaised { return 130 }
        terminal.say()
        let conclusion = Verifier.conclusion(
            of: problems, seconds: Date().timeIntervalSince(started), command: command)
        terminal.say(conclusion.lines)
        return conclusion.status
    }

    /// The mutants of the solutions, checked; the scores.
    func mutants(_ numbers: [Int], list: Bool, save: Bool, only: String?) throws -> Int32 {
        let chosen = numbers.isEmpty ? workshop.exercises : numbers.compactMap(workshop.exercise)
        func mutants(of exercise: Exercise) throws -> (String, [Mutant], EquivalentMutants) {
            let solution = try String(contentsOf: exercise.solution, encoding: .utf8)
            let stub = try String(contentsOf: exercise.stub, encoding: .utf8)
            let listed = EquivalentMutants.read(exercise)
            for problem in listed.problems { terminal.say("  Reference/EquivalentMutants.md: \(problem)") }
            let written = Mutant.all(of: solution, writtenOver: stub)
            return (solution, written.filter { only.map($0.name.contains) ?? true }, listed)
        }
        if list {
            for exercise in chosen {
                let (_, mutants, listed) = try mutants(of: exercise)
                terminal.say("Exercise \(exercise.number): \(mutants.count) mutants")
                for mutant in mutants {
                    let equivalent = mutant.isRewrite || listed.reasons[mutant.name] != nil
                    terminal.say("  \(equivalent ? "equivalent " : "")\(mutant.name)")
                }
            }
            return 0
        }
        var scores: [MutationScore] = []
        let status = try inCopies(command: "mutants") { copies, observer in
            var problems: [String] = []
            for exercise in chosen {
                let (solution, mutants, listed) = try mutants(of: exercise)
                let started = Date()
                let baseline = copies.check([(exercise.number, solution)], limits: limits, observer: observer)
                guard let solved = baseline[0], MutantOutcome(solved) == .passed else {
                    problems.append("exercise \(exercise.number): its solution does not pass: no mutant is judged")
                    continue
                }
                terminal.say("Exercise \(exercise.number): \(mutants.count) mutants, each checked as `check` does")
                let versions = mutants.map { (exercise.number, $0.source) }
                let results = copies.check(versions, limits: limits, observer: observer) {
                    [terminal] index, result, _ in
                    terminal.say("  \(MutantOutcome(result).description)  \(mutants[index].name)")
                }
                let outcomes = zip(mutants, results).compactMap { mutant, result in
                    result.map { (mutant, MutantOutcome($0)) }
                }
                var score = MutationScore(exercise: exercise.number, results: outcomes, listed: listed)
                score.seconds = Date().timeIntervalSince(started)
                terminal.say(score.report(solution: solution))
                scores.append(score)
                problems += (score.survivors.map(\.name) + score.rejectedEquivalents.map(\.mutant.name)).map {
                    "exercise \(exercise.number): \($0)"
                }
            }
            return problems
        }
        if save, !scores.isEmpty, !interruption.isRaised {
            let page = workshop.package.appendingPathComponent("README.md")
            try MutationScore.readme(try String(contentsOf: page, encoding: .utf8), with: scores)
                .write(to: page, atomically: true, encoding: .utf8)
            terminal.say("Wrote the scores into \(explainer.path(page)).")
        }
        return status
    }
}
