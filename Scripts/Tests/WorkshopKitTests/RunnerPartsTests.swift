import Foundation
import Testing
import WorkshopKit

@Suite("Workshop runner — the event stream, arguments, wrong answers, kept versions, paths")
struct RunnerPartsTests {
    @Test("the event stream is read line by line, also when a line arrives in two pieces")
    func eventStreamPieces() throws {
        let events = try #require(Fixture(name: "fail2").text("events.jsonl"))
        let data = Data(events.utf8)
        var splitter = LineSplitter()
        var log = RunLog()
        // Cut the stream in the middle of a line, as a growing file is read.
        let cut = data.count / 2
        log.add(lines: splitter.add(data[..<cut]))
        #expect(!log.runEnded)
        log.add(lines: splitter.add(data[cut...]) + splitter.flush())
        #expect(log.runEnded)
        #expect(log.failed.count == 3)
        #expect(log.passed.count == 1)
        #expect(log.tests.values.filter(\.isSuite).count == 1)
    }

    @Test("records of kinds the runner does not know, and lines that are not records, are skipped")
    func unknownRecords() {
        var log = RunLog()
        log.add(lines: [
            #"{"kind":"event","payload":{"kind":"valueAttached","messages":[]},"version":0}"#,
            #"{"kind":"somethingNew","payload":{},"version":0}"#,
            "not json",
            "",
        ])
        #expect(log.started.isEmpty && log.issues.isEmpty && !log.runStarted)
    }

    @Test("an issue's expectation is read after its location, even when the test's name has colons")
    func expectationText() {
        var log = RunLog()
        log.add(lines: [
            #"{"kind":"test","payload":{"displayName":"a: b","id":"M.S/t()/F.swift:1:1","kind":"function","name":"t()"},"version":0}"#,
            #"{"kind":"event","payload":{"kind":"issueRecorded","testID":"M.S/t()/F.swift:1:1","messages":[{"symbol":"fail","text":"Test \"a: b\" recorded an issue at F.swift:3:9: Expectation failed: learned"}]},"version":0}"#,
        ])
        #expect(log.issues.first?.expectation == "Expectation failed: learned")
        #expect(log.issues.first?.explanation == ["Expectation failed: learned"])
    }

    @Test("numbers are taken as the folders write them; anything else is a clear usage error")
    func arguments() throws {
        let exercises = Array(0...10)
        #expect(try Command(arguments: ["check", "02"], exercises: exercises) == .check(2))
        #expect(try Command(arguments: ["check", "2"], exercises: exercises) == .check(2))
        #expect(try Command(arguments: ["watch"], exercises: exercises) == .watch(nil))
        #expect(try Command(arguments: ["reset", "10"], exercises: exercises) == .reset(10))
        for wrong in [
            ["check"], ["check", "11"], ["check", "two"], ["check", "-1"], ["list", "now"], ["check", "2", "3"],
            ["frob"], [],
        ] {
            #expect {
                try Command(arguments: wrong, exercises: exercises)
            } throws: { error in
                (error as? WorkshopError)?.status == 2
            }
        }
        #expect(throws: WorkshopError.self) { try Command(arguments: ["hint", "2", "please"], exercises: exercises) }
        #expect(try Command(arguments: ["sync"], exercises: exercises) == .sync)
        #expect(try Command(arguments: ["verify"], exercises: exercises) == .verify([]))
        #expect(try Command(arguments: ["verify", "3", "8"], exercises: exercises) == .verify([3, 8]))
        #expect(throws: WorkshopError.self) { try Command(arguments: ["verify", "11"], exercises: exercises) }
        #expect(
            try Command(arguments: ["mutants"], exercises: exercises)
                == .mutants([], list: false, save: false, only: nil))
        #expect(
            try Command(arguments: ["mutants", "2", "8", "--save"], exercises: exercises)
                == .mutants([2, 8], list: false, save: true, only: nil))
        #expect(
            try Command(arguments: ["mutants", "8", "--only", "swap", "--list"], exercises: exercises)
                == .mutants([8], list: true, save: false, only: "swap"))
        #expect(
            try Command(arguments: ["equivalent", "8", "swap in init: a ⇄ b", "both set first"], exercises: exercises)
                == .equivalent(8, name: "swap in init: a ⇄ b", reason: "both set first"))
        for wrong in [
            ["mutants", "11"], ["mutants", "--only"], ["mutants", "--only", "x", "--save"],
            ["equivalent", "8", "name"],
        ] {
            #expect(throws: WorkshopError.self) { try Command(arguments: wrong, exercises: exercises) }
        }
    }

    @Test("a wrong answer's header: the mistake and the tests that catch it; an alternative's style")
    func variantHeaders() throws {
        let change = "--- Reference/Solution.swift\n+++ WrongAnswers/x.swift\n@@ -1,1 +1,1 @@\n-a\n+b\n"
        let wrong = try Variant.read(
            fixtureFile(
                "Wrong answer: I post isFinished inside the lock\nCaught by: finishReturns(), stateAfterFinish\n\n"
                    + change),
            wrong: true)
        #expect(
            wrong.kind
                == .wrongAnswer(
                    mistake: "I post isFinished inside the lock", caughtBy: ["finishReturns", "stateAfterFinish"]))
        #expect(try wrong.source(solution: "a\n") == "b\n")
        let alternative = try Variant.read(fixtureFile("Alternative: the keys in a loop\n\n" + change), wrong: false)
        #expect(alternative.kind == .alternative(style: "the keys in a loop"))
        #expect(wrong.platforms == nil && wrong.isJudged(on: "linux") && wrong.isJudged(on: "macos"))
        let macOnly = try Variant.read(
            fixtureFile("Wrong answer: keys without is\nCaught by: announcesBothKeys\nPlatforms: macOS\n" + change),
            wrong: true)
        #expect(macOnly.platforms == ["macos"] && macOnly.isJudged(on: "macos") && !macOnly.isJudged(on: "linux"))
        #expect(throws: WorkshopError.self) {
            try Variant.read(fixtureFile("Wrong answer: no test named\n" + change), wrong: true)
        }
        #expect(throws: WorkshopError.self) {
            try Variant.read(fixtureFile("Wrong answer: no change\nCaught by: finishReturns\n"), wrong: true)
        }
    }

    @Test("a variant is its change to the solution: it applies where its lines are, and says when they are gone")
    func patches() throws {
        let solution = "one\ntwo\nthree\nfour\nfive\nsix\n"
        let diff = unifiedDiff(
            from: solution, to: "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\n", oldName: "Reference/Solution.swift",
            newName: "Alternatives/x.swift")
        let patch = try Patch((["Alternative: x", ""] + diff).joined(separator: "\n") + "\n")
        #expect(patch.header == ["Alternative: x", ""])
        #expect(try patch.apply(to: solution) == "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\n")
        // Lines added above its change: it still applies, further down.
        #expect(try patch.apply(to: "zero\n" + solution) == "zero\none\ntwo\nTHREE\nfour\nfive\nsix\nseven\n")
        // The lines it changes changed: it says which change no longer matches.
        #expect {
            try patch.apply(to: solution.replacingOccurrences(of: "three", with: "3"))
        } throws: { error in
            "\(error)".contains("no longer matches the solution")
        }
        // A standard diff (diff -u, with dates) reads the same.
        let dated = try Patch(
            "--- a.swift\t2026-01-01 00:00:00\n+++ b.swift\t2026-01-01 00:00:01\n@@ -2,3 +2,3 @@\n two\n-three\n+3\n four\n"
        )
        #expect(try dated.apply(to: solution) == "one\ntwo\n3\nfour\nfive\nsix\n")
    }

    @Test("every wrong answer and alternative in the repository applies to its exercise's solution")
    func repositoryVariantsApply() throws {
        let workshop = try Workshop(root: Fixture.root)
        for exercise in workshop.exercises {
            let found = Variant.all(of: exercise)
            #expect(found.problems.isEmpty, "\(found.problems)")
            let solution = try String(contentsOf: exercise.solution, encoding: .utf8)
            for variant in found.variants where variant.patch != nil {
                let source = try variant.source(solution: solution)
                #expect(source != solution, "\(exercise.folder)/\(variant.shortPath) changes nothing")
            }
        }
    }

    @Test("verify's expectations: a wrong answer must fail in a test it names; a solution must pass")
    func variantExpectations() {
        let file = URL(fileURLWithPath: "/x.swift")
        let fails = Fixture(name: "fail2").judgement
        let passes = Fixture(name: "pass5").judgement
        let caught = Variant(kind: .wrongAnswer(mistake: "m", caughtBy: ["queueLearnsFinished"]), file: file)
        #expect(caught.problem(with: fails) == nil)
        #expect(caught.problem(with: passes) == "it must fail, but it passes")
        let elsewhere = Variant(kind: .wrongAnswer(mistake: "m", caughtBy: ["finishReturns"]), file: file)
        #expect(elsewhere.problem(with: fails)?.contains("not in finishReturns") == true)
        let uncompiled = Variant(kind: .wrongAnswer(mistake: "m", caughtBy: ["finishReturns"]), file: file)
        #expect(uncompiled.problem(with: Fixture(name: "compile2").judgement) != nil)
        let solution = Variant(kind: .solution, file: file)
        #expect(solution.problem(with: passes) == nil)
        #expect(solution.problem(with: fails) != nil)
        let stub = Variant(kind: .stub, file: file)
        #expect(stub.problem(with: fails) == nil)
        #expect(stub.problem(with: Fixture(name: "crash10index").judgement) != nil)
    }

    @Test("verify fails, naming the file, when a wrong answer passes or a solution or alternative fails")
    func verifyNamesTheVariantThatBreaksTheRule() throws {
        let exercise = try repositoryExercise(2)
        let fails = Fixture(name: "fail2").judgement
        let passes = Fixture(name: "pass5").judgement
        let wrong = Variant(
            kind: .wrongAnswer(mistake: "m", caughtBy: ["queueLearnsFinished"]),
            file: exercise.wrongAnswers.appendingPathComponent("only-is-finished.diff"))
        let alternative = Variant(
            kind: .alternative(style: "s"), file: exercise.alternatives.appendingPathComponent("keys-in-a-loop.diff"))
        let solution = Variant(kind: .solution, file: exercise.solution)
        let stub = Variant(kind: .stub, file: exercise.stub)

        // Each breaks the rule: a line that names the exercise and the file.
        let broken: [(Variant, Judgement, String)] = [
            (wrong, passes, "WrongAnswers/only-is-finished.diff"),
            (alternative, fails, "Alternatives/keys-in-a-loop.diff"),
            (solution, fails, "Reference/Solution.swift"),
            (stub, passes, "Reference/Stub.swift"),
        ]
        var lines: [String] = []
        for (variant, judgement, path) in broken {
            let found = Verifier.problems(of: variant, in: exercise, judgement: judgement)
            let line = try #require(found.first)
            #expect(line.hasPrefix("exercise 2, ") && line.contains(path), "\(line)")
            lines += found
        }
        // Each keeps it: no line about its verdict; but the recorded failures' messages (older
        // than the hints) name no section of the hint, and verify says so, test by test.
        for (variant, judgement) in [(wrong, fails), (alternative, passes), (solution, passes), (stub, fails)] {
            let found = Verifier.problems(of: variant, in: exercise, judgement: judgement)
            #expect(found.count == judgement.failures.count && found.allSatisfy { $0.contains("fails with no hint") })
        }
        let failed = Verifier.conclusion(of: lines, seconds: 1)
        #expect(failed.status != 0)
        for path in broken.map(\.2) {
            #expect(failed.lines.contains { $0.contains(path) }, "verify's last lines do not name \(path)")
        }
        #expect(Verifier.conclusion(of: [], seconds: 1).status == 0)
    }

    @Test("verify keeps the runs of a version it found wrong, beside the copies, named after the version")
    func keptRunsOfAProblem() throws {
        let exercise = try repositoryExercise(6)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("workshop-runs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let place = CheckPlace(
            workshop: try Workshop(root: Fixture.root), folder: folder.appendingPathComponent("copy1"))
        let report = place.folder.appendingPathComponent("runs/race-detector/tsan.123")
        try FileManager.default.createDirectory(
            at: report.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("WARNING: ThreadSanitizer: data race".utf8).write(to: report)
        let wrong = Variant(
            kind: .wrongAnswer(mistake: "m", caughtBy: [Variant.raceDetector]),
            file: exercise.wrongAnswers.appendingPathComponent("outcome-in-a-plain-var.diff"))
        let kept = try #require(Verifier.keepRuns(of: wrong, in: exercise, from: place))
        #expect(kept.path == folder.path + "/problems/exercise6-outcome-in-a-plain-var")
        let copied = try String(
            contentsOf: kept.appendingPathComponent("race-detector/tsan.123"), encoding: .utf8)
        #expect(copied.contains("data race"))
    }

    @Test("a version is written again until its file's date falls in a later second than the call")
    func versionDatedInASecondOfItsOwn() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("workshop-dated-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        // A file system clock that lags: the first write is dated 2 ms before the next second.
        let called = Date().timeIntervalSince1970.rounded(.down)
        var reads = 0
        let writes = try Copies.writeInASecondOfItsOwn(Data("v2".utf8), to: file) { _ in
            reads += 1
            return Date(timeIntervalSince1970: reads == 1 ? called + 0.998 : Date().timeIntervalSince1970)
        }
        #expect(writes == 2)
        #expect(try String(contentsOf: file, encoding: .utf8) == "v2")
        #expect(Date().timeIntervalSince1970.rounded(.down) > called)
    }

    @Test("reset keeps the learner's version, in a file of its own each time")
    func keptVersions() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("workshop-kept-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let memory = Memory(folder: folder)
        let exercise = try repositoryExercise(2)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try memory.keep(Data("first".utf8), of: exercise, now: start)
        let second = try memory.keep(Data("second".utf8), of: exercise, now: start.addingTimeInterval(1))
        #expect(try String(contentsOf: first, encoding: .utf8) == "first")
        #expect(try String(contentsOf: second, encoding: .utf8) == "second")
        #expect(!second.path.contains(" ") && second.lastPathComponent.hasSuffix(exercise.file.lastPathComponent))
    }

    @Test("paths are printed so that they work from where the command was run")
    func relativePaths() {
        #expect(Explainer.relativePath("/r/Chapters/Workshop/x.swift", from: "/r") == "Chapters/Workshop/x.swift")
        #expect(
            Explainer.relativePath("/r/Chapters/Workshop/x.swift", from: "/r/Chapters/02-ManualState")
                == "../Workshop/x.swift")
        #expect(Explainer.relativePath("/r/a", from: "/r/a") == ".")
        #expect(Explainer.relativePath("/r/a", from: "/s") == "/r/a")
        let explainer = Explainer(
            workingDirectory: URL(fileURLWithPath: "/r/Chapters"), launcher: "../Scripts/workshop")
        #expect(explainer.command("hint 2") == "../Scripts/workshop hint 2")
    }

    @Test("solution's diff: the changed lines, with context")
    func diff() {
        let lines = unifiedDiff(
            from: "a\nb\nc\nd", to: "a\nB\nc\nd\ne", oldName: "stub", newName: "solution", context: 1)
        #expect(lines == ["--- stub", "+++ solution", "@@ -1,4 +1,5 @@", " a", "-b", "+B", " c", " d", "+e"])
        #expect(unifiedDiff(from: "same", to: "same", oldName: "a", newName: "b").isEmpty)
    }

    @Test("progress: one mark per exercise")
    func progress() {
        #expect(progressBar([.passes, .fails, nil, .passes]) == "[#-.#] 2 of 4 done")
    }

    func fixtureFile(_ text: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("variant-\(UUID().uuidString).diff")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }
}
