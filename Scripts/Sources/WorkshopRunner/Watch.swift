import Foundation
import WorkshopKit

/// `watch`: one exercise on the screen, checked again each time its file is saved; keys
/// for the hint, resetting it, the list, and the next exercise (only once it passes, and
/// only when the learner asks).
struct Watch {
    let runner: Runner
    var exercise: Exercise?
    var terminal: Terminal { runner.terminal }

    init(runner: Runner, start: Int?) {
        self.runner = runner
        exercise = start.flatMap { runner.workshop.exercise($0) } ?? runner.unfinished(after: nil)
    }

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
        var message: [String] = []
        var seen = Memory.fingerprint(of: exercise)

        while !runner.interruption.isRaised {
            if needsCheck {
                header(exercise)
                verdict = try runner.check(exercise, header: false)
                if runner.interruption.isRaised { return 130 }
                if runner.quitRequested { return 1 }
                seen = Memory.fingerprint(of: exercise)
                needsCheck = false
                footer(exercise, verdict: verdict, message: message)
                message = []
            }
            // Wait for a key, or for the file to change.
            let pending = runner.pendingKeys.isEmpty ? nil : runner.pendingKeys.removeFirst()
            guard let key = pending ?? terminal.key(within: 400) else {
                if Memory.fingerprint(of: exercise) != seen { needsCheck = true }
                continue
            }
            switch key.lowercased() {
            case "q":
                terminal.say()
                return verdict == .passes ? 0 : 1
            case "h":
                runner.hint(exercise)
                footer(exercise, verdict: verdict, message: [])
            case "l":
                runner.list()
                footer(exercise, verdict: verdict, message: [])
            case "c":
                needsCheck = true
            case "x":
                message = try runner.reset(exercise)
                needsCheck = true
            case "n" where verdict == .passes:
                guard let next = runner.unfinished(after: exercise) else {
                    terminal.say("Every exercise passes: the workshop is done.")
                    return 0
                }
                exercise = next
                verdict = runner.memory.verdict(of: exercise)
                needsCheck = true
            case "n":
                footer(exercise, verdict: verdict, message: ["n moves on once this exercise passes."])
            default:
                continue
            }
        }
        return 130
    }

    func header(_ exercise: Exercise) {
        terminal.clearScreen()
        terminal.say("Workshop — exercise \(exercise.number): \(exercise.title)")
        terminal.say("Progress \(progressBar(runner.verdicts()))")
        terminal.say(
            "Edit \(runner.explainer.path(exercise.file)):\(runner.todoLine(exercise))"
                + "   (read \(runner.explainer.path(exercise.chapterReadme)))")
        terminal.say(String(repeating: "─", count: 72))
    }

    func footer(_ exercise: Exercise, verdict: Verdict?, message: [String]) {
        terminal.say(String(repeating: "─", count: 72))
        for line in message { terminal.say(line) }
        if verdict == .passes {
            terminal.say("Exercise \(exercise.number) passes. Press n for the next exercise, or keep improving it.")
        } else {
            terminal.say("Save the file to check again.")
        }
        terminal.say(
            "Keys: " + (verdict == .passes ? "n next · " : "") + "h hint · x reset · c check · l list · q quit")
    }
}
