#if os(macOS) || os(Linux)
    import Foundation
    import WorkshopKit

    /// `watch`: one exercise on the screen, checked again each time its file is saved; keys
    /// for the hint, resetting it, running its chapter, the list, and the next exercise (only
    /// once it passes, and only when the learner asks).
    struct Watch {
        let runner: Runner
        var exercise: Exercise?
        var terminal: Terminal { runner.terminal }

        init(runner: Runner, start: Int?) {
            self.runner = runner
            exercise = start.flatMap { runner.workshop.exercise($0) } ?? runner.unfinished(after: nil)
        }

        /// What the screen shows below the header, besides the check's own output.
        enum Panel { case none, hint, list, chapter }

        func run() throws -> Int32 {
            guard var exercise else {
                terminal.say("Every exercise passes: nothing to watch.")
                return 0
            }
            terminal.startReadingKeys()
            runner.watchingKeys = true
            defer { terminal.stopReadingKeys() }
            var verdict = runner.memory.verdict(of: exercise)
            var needsCheck = true
            var panel = Panel.none
            var message: String?
            var seen = Memory.fingerprint(of: exercise)
            var output: [String] = []

            while !runner.interruption.isRaised {
                if needsCheck {
                    header(exercise)
                    terminal.recording = []
                    verdict = try runner.check(exercise, header: false)
                    output = terminal.recording ?? []
                    terminal.recording = nil
                    if runner.interruption.isRaised { return 130 }
                    if runner.quitRequested { return 1 }
                    seen = Memory.fingerprint(of: exercise)
                    needsCheck = false
                    panel = .none
                    footer(exercise, verdict: verdict, message: message)
                    message = nil
                }
                // Wait for a key, or for the file to change.
                let pending = runner.pendingKeys.isEmpty ? nil : runner.pendingKeys.removeFirst()
                guard let key = pending ?? terminal.key(within: 400) else {
                    if Memory.fingerprint(of: exercise) != seen { needsCheck = true }
                    continue
                }
                switch key {
                case "q", "Q":
                    terminal.say()
                    return verdict == .passes ? 0 : 1
                case "h", "H":
                    panel = panel == .hint ? .none : .hint
                    redraw(exercise, verdict: verdict, output: output, panel: panel)
                case "l", "L":
                    panel = panel == .list ? .none : .list
                    redraw(exercise, verdict: verdict, output: output, panel: panel)
                case "r", "R":
                    panel = .chapter
                    header(exercise)
                    runChapter(exercise)
                    footer(exercise, verdict: verdict, message: nil)
                case "c", "C":
                    needsCheck = true
                case "x", "X":
                    header(exercise)
                    try runner.reset(exercise)
                    needsCheck = true
                    message = "Reset to the stub; `restore \(exercise.number)` brings your version back."
                case "n", "N":
                    guard verdict == .passes else {
                        footer(exercise, verdict: verdict, message: "n moves on once this exercise passes.")
                        continue
                    }
                    guard let next = runner.unfinished(after: exercise) else {
                        terminal.say("Every exercise passes: the workshop is done.")
                        return 0
                    }
                    exercise = next
                    verdict = runner.memory.verdict(of: exercise)
                    needsCheck = true
                default:
                    continue
                }
            }
            return 130
        }

        func header(_ exercise: Exercise) {
            terminal.clearScreen()
            let path = runner.explainer.path(exercise.file)
            terminal.say("Workshop — exercise \(exercise.number): \(exercise.title)")
            terminal.say("Progress \(progressBar(runner.verdicts()))")
            terminal.say(
                "Edit \(path):\(runner.todoLine(exercise))   (read \(runner.explainer.path(exercise.chapterReadme)))")
            terminal.say(String(repeating: "─", count: 72))
        }

        func footer(_ exercise: Exercise, verdict: Verdict?, message: String?) {
            terminal.say(String(repeating: "─", count: 72))
            if let message { terminal.say(message) }
            if verdict == .passes {
                terminal.say("Exercise \(exercise.number) passes. Press n for the next exercise, or keep improving it.")
            } else {
                terminal.say("Save the file to check again.")
            }
            var keys = ["h hint", "r run chapter \(exercise.number)", "x reset", "c check", "l list", "q quit"]
            if verdict == .passes { keys.insert("n next", at: 0) }
            terminal.say("Keys: " + keys.joined(separator: " · "))
        }

        /// The screen again, without checking: the last check's output, then the panel.
        func redraw(_ exercise: Exercise, verdict: Verdict?, output: [String], panel: Panel) {
            header(exercise)
            if output.isEmpty {
                terminal.say("Last check: \(verdict.map(\.rawValue) ?? "none yet"). Press c to check again.")
            }
            for line in output { terminal.say(line) }
            switch panel {
            case .hint:
                terminal.say(String(repeating: "─", count: 72))
                runner.hint(exercise)
            case .list:
                terminal.say(String(repeating: "─", count: 72))
                runner.list()
            case .none, .chapter:
                break
            }
            footer(exercise, verdict: verdict, message: nil)
        }

        /// `swift run chapterN`, its output shown as it comes; q stops it.
        func runChapter(_ exercise: Exercise) {
            terminal.say("swift run \(exercise.chapterProduct)  (q stops it)")
            let output = runner.runs.appendingPathComponent("chapter.txt")
            try? FileManager.default.createDirectory(at: runner.runs, withIntermediateDirectories: true)
            do {
                let child = try ChildProcess(
                    ["swift", "run", "--package-path", runner.workshop.root.path, exercise.chapterProduct],
                    environment: ProcessInfo.processInfo.environment, outputFile: output)
                defer { child.stopAll() }
                let handle = try? FileHandle(forReadingFrom: output)
                var lines = LineSplitter()
                let started = Date()
                while true {
                    if let data = try? handle?.readToEnd(), !data.isEmpty {
                        for line in lines.add(data) where !line.hasPrefix("[") { terminal.say("  " + line) }
                    }
                    if let status = child.poll() {
                        if let data = try? handle?.readToEnd() {
                            for line in lines.add(data) + lines.flush() where !line.hasPrefix("[") {
                                terminal.say("  " + line)
                            }
                        }
                        terminal.say(
                            status == 0 ? "(chapter \(exercise.number) ran to the end)" : "(exit status \(status))")
                        return
                    }
                    if runner.interruption.isRaised || terminal.key(within: 50) == "q"
                        || Date().timeIntervalSince(started) > runner.limits.build
                    {
                        terminal.say("(stopped)")
                        return
                    }
                }
            } catch {
                terminal.say("could not run the chapter: \(error)")
            }
        }
    }
#endif
