import Foundation
import Testing
import WorkshopKit

/// The runner's verdicts and explanations, decided from runs recorded from the real workshop
/// (Fixtures.swift lists them and how each was made).
@Suite("Workshop runner — verdicts and explanations from recorded runs")
struct VerdictTests {
    @Test("a right answer passes, with each test counted")
    func passes() throws {
        let judgement = Fixture(name: "pass5").judgement
        #expect(judgement.verdict == .passes)
        #expect(judgement.passedCount == 2)
        #expect(explanation(judgement, of: try repositoryExercise(5)).contains("passes"))
    }

    @Test("a stub fails: each failing test with the learner-facing messages it recorded")
    func fails() throws {
        let judgement = Fixture(name: "fail2").judgement
        #expect(judgement.verdict == .fails)
        #expect(
            Set(judgement.failures.map(\.test.functionName))
                == ["announcesBothKeys", "queueLearnsFinished", "stateAfterFinish"])
        #expect(judgement.passedCount == 1)
        let announces = try #require(judgement.failures.first { $0.test.functionName == "announcesBothKeys" })
        #expect(announces.issues.count == 2)
        #expect(announces.issues[0].explanation == announces.issues[0].comments)
        #expect(announces.issues[0].comments.first?.contains("never announces \"isExecuting\"") == true)
        let text = explanation(judgement, of: try repositoryExercise(2))
        #expect(text.contains("3 of 4 tests fail"))
        #expect(text.contains("Scripts/workshop hint 2"))
    }

    @Test("a compile error keeps the compiler's source excerpt and its note, and suggests the hint")
    func doesNotCompile() throws {
        let judgement = Fixture(name: "compile2").judgement
        #expect(judgement.verdict == .doesNotCompile)
        let error = try #require(judgement.compileErrors.first)
        #expect(judgement.compileErrors.count == 1)
        #expect(error.message == "missing argument for parameter 'forKey' in call")
        #expect(error.line == 32)
        #expect(error.notes.count == 1)
        #expect(error.notes.first?.contains("note: 'willChangeValue(forKey:)' declared here") == true)
        #expect(error.lines.contains { $0.contains("willChangeValue()") })  // the excerpt
        // The package manager's "error: fatalError" says nothing the errors do not.
        #expect(!judgement.otherErrors.contains("error: fatalError"))
        let text = explanation(judgement, of: try repositoryExercise(2))
        #expect(text.contains("note: 'willChangeValue(forKey:)' declared here"))
        #expect(text.contains("AnnouncingOperation.swift:32"))
        #expect(text.contains("Scripts/workshop hint 2"))
    }

    @Test("a crash names the signal, the tests that were running, and what the runtime said")
    func crashNamesSignalAndTest() throws {
        let judgement = Fixture(name: "crash10index").judgement
        #expect(judgement.verdict == .crashed)
        // In parallel, several tests were running: each is named, none is picked by a guess.
        let running = try #require(judgement.crash?.running)
        #expect(running.count > 1 && running.contains { $0.functionName == "atMostWidth" })
        #expect(judgement.crash?.signal == 4)
        #expect(judgement.crash?.reason.last?.contains("Fatal error: Index out of range") == true)
        let text = explanation(judgement, of: try repositoryExercise(10))
        #expect(text.contains("signal 4 (SIGILL), while these tests ran:"))
        #expect(text.contains("“width 2, 8 jobs: at most 2 run at once, and all 8 finish”"))
        #expect(text.contains("Fatal error: Index out of range"))
        // The exercise's note for an index out of range: what the runtime said shows it.
        #expect(text.contains("What that means in exercise 10:"))
        #expect(text.contains("store the value"))
        #expect(text.contains("Scripts/workshop hint 10"))
    }

    @Test("a crash in Foundation keeps Foundation's reason; a nil unwrapped in the exercise names its file")
    func crashReasons() throws {
        let cancel = Fixture(name: "crash3cancel").judgement
        #expect(cancel.crash?.running.contains { $0.functionName == "cancelledBeforeStart" } == true)
        #expect(cancel.crash?.reason.last?.contains("cannot be enqueued") == true)
        let nilUnwrap = Fixture(name: "crash10nil").judgement
        #expect(nilUnwrap.crash?.reason.last?.contains("Unexpectedly found nil while unwrapping") == true)
        let text = explanation(nilUnwrap, of: try repositoryExercise(10))
        #expect(text.contains("Chapters/Workshop/10-StructuredConcurrency/Exercise10/LimitedMap.swift:34: Fatal error"))
    }

    @Test("a crash after an issue names that issue and the signal, whatever the signal")
    func crashAfterAnIssue() throws {
        // exercise 2's recorded failing run, cut off after its last issue, as a crash would:
        // no test ended after it, no run end, and the package manager's signal line.
        let events = try #require(Fixture(name: "fail2").text("events.jsonl")).split(separator: "\n").map(String.init)
        let lastIssue = try #require(events.lastIndex { $0.contains("\"kind\":\"issueRecorded\"") })
        var log = RunLog()
        log.add(lines: Array(events[...lastIssue]))
        let run = RunObservation(
            exitStatus: 1, console: "error: Process '…' exited with unexpected signal code 11", log: log)
        let judgement = Judgement(run)
        #expect(judgement.verdict == .crashed)
        #expect(judgement.crash?.signal == 11)
        #expect(judgement.crash?.lastIssue?.comments.first?.contains("the queue never learned") == true)
        let text = explanation(judgement, of: try repositoryExercise(2))
        #expect(text.contains("signal 11 (SIGSEGV)"))
        #expect(text.contains("The last issue a test recorded before the crash:"))
    }

    @Test("tests that do not end: the check names each, then the exercise's Stuck.md, and guesses nothing")
    func testsThatDoNotEnd() throws {
        // Exercise 10 limited by a semaphore that each child waits on: four tests held at once.
        let pool = Fixture(name: "stuck10pool").judgement
        #expect(pool.verdict == .ranOutOfTime)
        #expect(pool.timeOut?.unfinished.count == 4)
        let exercise = try repositoryExercise(10)
        let text = explanation(pool, of: exercise)
        #expect(text.contains("These had not ended:"))
        for test in pool.timeOut?.unfinished ?? [] { #expect(text.contains("“\(test.displayName)”")) }
        let stuck = try #require(ExerciseNotes(of: exercise).stuck)
        #expect(text.contains("A hint for exercise 10 (Reference/Stuck.md):") && text.contains(stuck[1]))
        // Exercise 7's resolveInput looping: its one test named, as a loop's is.
        let loop = Fixture(name: "stuck7loop").judgement
        #expect(loop.verdict == .ranOutOfTime && !(loop.timeOut?.unfinished.isEmpty ?? true))
    }

    @Test("one test waits for ever while the others end: that test is named, the others counted as passed")
    func oneTestHangs() throws {
        let judgement = Fixture(name: "stuck7one").judgement
        #expect(judgement.verdict == .ranOutOfTime)
        #expect(judgement.timeOut?.unfinished.map(\.functionName) == ["twoProviders"])
        #expect(judgement.passedCount == 4)
        let text = explanation(judgement, of: try repositoryExercise(7))
        #expect(text.contains("These had not ended:\n    “"))
    }

    @Test("a build that ran out of time is not blamed on the tests")
    func buildTimeOut() throws {
        let run = RunObservation(exitStatus: nil, stoppedIn: .build, console: "[12/196] Compiling", log: RunLog())
        let judgement = Judgement(run)
        #expect(judgement.verdict == .ranOutOfTime)
        #expect(judgement.timeOut?.phase == .build)
        #expect(explanation(judgement, of: try repositoryExercise(1)).contains("The build ran out of time"))
    }

    @Test("what a wrong answer's Caught by: line is compared with: failed, crashed and unfinished tests")
    func caughtBy() {
        #expect(
            Fixture(name: "fail2").judgement.caughtBy == [
                "announcesBothKeys", "queueLearnsFinished", "stateAfterFinish",
            ])
        #expect(Fixture(name: "crash10index").judgement.caughtBy.contains("atMostWidth"))
        #expect(Fixture(name: "stuck7one").judgement.caughtBy == ["twoProviders"])
        #expect(Fixture(name: "pass5").judgement.caughtBy.isEmpty)
    }
}
