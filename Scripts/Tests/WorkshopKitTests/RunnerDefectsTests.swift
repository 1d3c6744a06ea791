import Foundation
import Testing
import WorkshopKit

#if os(Linux)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What an attendee found wrong with the runner (issue 29), each reproduced on a recorded run
/// or a real process: the message that a test's source comments hid, messages under the wrong
/// test, a crash blamed on a guess, a race the tests' timing missed, two runs at once, a killed
/// runner's leftovers, an editor's lock file.
@Suite("Workshop runner — what an attendee found wrong, each reproduced")
struct RunnerDefectsTests {
    static let test =
        #"{"kind":"test","payload":{"displayName":"D","id":"M.S/d()/F.swift:1:1","kind":"function","name":"d()"},"version":0}"#
    static let other =
        #"{"kind":"test","payload":{"displayName":"O","id":"M.S/o()/F.swift:9:1","kind":"function","name":"o()"},"version":0}"#

    static func event(_ kind: String, _ test: String, messages: String = #"[{"symbol":"default","text":""}]"#)
        -> String
    {
        #"{"kind":"event","payload":{"kind":"\#(kind)","testID":"M.S/\#(test)()/F.swift:\#(test == "d" ? 1 : 9):1","messages":\#(messages)},"version":0}"#
    }

    @Test("an issue shows the expectation's own message, never the // comments written above it")
    func sourceCommentsLeftOut() {
        var log = RunLog()
        log.add(lines: [
            Self.test,
            Self.event(
                "issueRecorded", "d",
                messages:
                    #"[{"symbol":"fail","text":"Expectation failed: x"},{"symbol":"details","text":"// A getter that said \"executing\":"},{"symbol":"details","text":"/// on Linux, Foundation reads it"},{"symbol":"details","text":"start() marked it executing (hint: \"Look first\")"}]"#
            ),
        ])
        #expect(log.issues.first?.explanation == [#"start() marked it executing (hint: "Look first")"#])
        // An expectation with no message of its own says what it saw, not the comments.
        var bare = RunLog()
        bare.add(lines: [
            Self.test,
            Self.event(
                "issueRecorded", "d",
                messages:
                    #"[{"symbol":"fail","text":"Expectation failed: x"},{"symbol":"details","text":"// a note"}]"#),
        ])
        #expect(bare.issues.first?.explanation == ["Expectation failed: x"])
    }

    @Test("each test's messages are shown under it when it ends, whatever ended meanwhile")
    func messagesUnderTheirTest() {
        var log = RunLog()
        var shown: [RunLog.Happening] = []
        let fail = #"[{"symbol":"fail","text":"Expectation failed: x"},{"symbol":"details","text":"first"}]"#
        let second = #"[{"symbol":"fail","text":"Expectation failed: y"},{"symbol":"details","text":"second"}]"#
        for line in [
            Self.test, Self.other, Self.event("testStarted", "d"), Self.event("testStarted", "o"),
            Self.event("issueRecorded", "d", messages: fail),
            Self.event("testEnded", "o", messages: #"[{"symbol":"pass","text":""}]"#),
            Self.event("issueRecorded", "d", messages: second),
            Self.event("testEnded", "d", messages: #"[{"symbol":"fail","text":""}]"#),
        ] {
            if let record = StreamRecord.decode(line: line) { shown += log.add(record) }
        }
        guard shown.count == 2, case .ended(let passing, true, let none) = shown[0],
            case .ended(let failing, false, let issues) = shown[1]
        else {
            Issue.record("\(shown)")
            return
        }
        #expect(passing.name == "o()" && none.isEmpty)
        #expect(failing.name == "d()" && issues.map(\.comments) == [["first"], ["second"]])
    }

    @Test(
        "a crash names where it stopped (Foundation's function, then the learner's line), and no guess the report does not show"
    )
    func crashNamesTheRealFrame() throws {
        // Exercise 1 answered with an NSConditionLock: Linux's Foundation traps in
        // NSCondition.wait(until:) for Date.distantFuture.
        let judgement = Fixture(name: "crash1conditionlock").judgement
        let backtrace = try #require(judgement.crash?.backtrace)
        #expect(backtrace.crashFrame?.function == "NSCondition.wait(until:)")
        #expect(backtrace.crashFrame?.libraryName == "Foundation")
        let exercise = try repositoryExercise(1)
        let own = try #require(backtrace.frame(inFile: exercise.file.path))
        #expect(own.function == "WaitingOperation.main()" && own.line == 31)
        let text = explanation(judgement, of: exercise)
        #expect(text.contains("It stopped inside Foundation, in NSCondition.wait(until:)"), "\(text)")
        #expect(
            text.contains(
                "Chapters/Workshop/01-SyncOnly/Exercise1/WaitingOperation.swift:31, in WaitingOperation.main()"))
        // The exercise's note for that frame, and not its note for a semaphore, which is not there.
        #expect(text.contains("Date.distantFuture"))
        #expect(!text.contains("Semaphore object deallocated"))
    }

    @Test("a race the tests' timing missed fails the check, with its two accesses at lines of the learner's file")
    func raceFailsTheCheck() throws {
        // Exercise 1 answered with a plain Bool that main() polls: its three tests passed, and
        // ThreadSanitizer reported the flag written by the work and read by main().
        var observation = Fixture(name: "race1flag").observation
        observation.races = DataRace.reports(in: observation.console)
        let judgement = Judgement(observation)
        #expect(judgement.verdict == .dataRace)
        #expect(judgement.caughtBy.contains(Variant.raceDetector))
        #expect(judgement.races.count == 1, "the same two lines on two objects are one race to fix")
        let exercise = try repositoryExercise(1)
        let accesses = try #require(judgement.races.first?.accesses)
        #expect(accesses.map(\.isWrite) == [true, false])
        #expect(accesses.compactMap { $0.place(preferring: exercise.file.path)?.line } == [28, 30])
        let text = explanation(judgement, of: exercise)
        #expect(
            text.contains("written by one thread at Chapters/Workshop/01-SyncOnly/Exercise1/WaitingOperation.swift:28"))
        #expect(
            text.contains("read by another thread at Chapters/Workshop/01-SyncOnly/Exercise1/WaitingOperation.swift:30")
        )
        #expect(text.contains("Chapter 1 explains it: Chapters/01-"))
        #expect(text.contains("Wait for a signal instead"), "exercise 1's Race.md")
    }

    @Test("a race in an exit test's child is read from the report it wrote: a Swift access race at the learner's lines")
    func raceInAChildProcess() throws {
        // Exercise 8 answered with the count under the lock and the slots outside it: its race
        // runs in an exit test's child, which wrote this report (log_path), not the console.
        let report = try #require(Fixture(name: "race8slots").text("tsan-report.txt"))
        let races = DataRace.reports(in: report)
        #expect(!races.isEmpty)
        let exercise = try repositoryExercise(8)
        let race = try #require(races.first)
        #expect(race.accesses.count == 2)
        let writes = race.accesses.filter(\.isWrite)
        #expect(!writes.isEmpty, "a modifying access is a write")
        for access in race.accesses {
            let place = access.place(preferring: exercise.file.path)
            #expect(place?.file.map { Backtrace.isSameFile($0, as: exercise.file.path) } == true, "\(access)")
        }
    }

    @Test("ThreadSanitizer's Swift names are made readable")
    func demangling() {
        let names = DataRace.demangledNames(
            in: "$s9Exercise116WaitingOperationC4mainyyF ---> WaitingOperation.main()\nnoise\n")
        #expect(names == ["$s9Exercise116WaitingOperationC4mainyyF": "WaitingOperation.main()"])
        let race = DataRace(accesses: [
            .init(
                isWrite: true,
                frames: [.init(function: "$s9Exercise116WaitingOperationC4mainyyF", file: "/x/W.swift", line: 3)])
        ])
        #expect(race.demangled { _ in names }.accesses[0].frames[0].function == "WaitingOperation.main()")
        // Darwin's ThreadSanitizer names the file without its folder.
        let darwin = DataRace.frame("#0 WaitingOperation.main() WaitingOperation.swift:30 (Exercise1Tests:arm64+0x1)")
        #expect(darwin?.file == "WaitingOperation.swift" && darwin?.line == 30)
        #expect(
            Backtrace.isSameFile(
                "WaitingOperation.swift", as: "/r/Chapters/Workshop/01-SyncOnly/Exercise1/WaitingOperation.swift"))
    }

    @Test("an editor's files beside the exercise's are not the exercise's file")
    func editorFilesIgnored() {
        #expect(
            Workshop.swiftFiles([".#CancelAwareOperation.swift", "CancelAwareOperation.swift", "#A.swift#"]) == [
                "CancelAwareOperation.swift"
            ])
    }

    #if os(macOS) || os(Linux)
        @Test("one runner at a time in a build folder: a second one sees who holds it, and gets it once it is free")
        func oneRunnerAtATime() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "workshop-lock-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let first = FolderLock(folder: folder)
            let second = FolderLock(folder: folder)
            #expect(try first.tryLock(as: "Scripts/workshop check 3"))
            #expect(try !second.tryLock(as: "Scripts/workshop check 0"))
            #expect(second.holder() == "`Scripts/workshop check 3` (process \(getpid()))")
            // A process the holder starts does not inherit the lock: when a killed runner's
            // leftovers inherited it, they held it for ever, and the next check waited.
            #expect(!first.passesToChildren)
            first.unlock()
            #expect(try second.tryLock(as: "Scripts/workshop check 0"))
            second.unlock()
        }

        @Test(
            "the processes a killed runner recorded are stopped by the next one; another process with the same pid is not"
        )
        func leftoversStopped() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "workshop-left-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let output = folder.appendingPathComponent("out.txt")
            let left = try ChildProcess(["sleep", "30"], environment: [:], outputFile: output)
            let kept = try ChildProcess(["sleep", "30"], environment: [:], outputFile: output)
            defer {
                left.stopAll()
                kept.stopAll()
            }
            let table = ProcessTable.snapshot()
            let leftEntry = try #require(table.first { $0.pid == left.pid })
            let keptEntry = try #require(table.first { $0.pid == kept.pid })
            // What a runner killed with SIGKILL leaves: its record (the second process recorded
            // with another start time, as a pid reused since would be).
            let record = "\(leftEntry.pid) \(leftEntry.started)\n\(keptEntry.pid) \(keptEntry.started &+ 1)\n"
            try Data(record.utf8).write(to: folder.appendingPathComponent("processes.txt"))
            let next = FolderLock(folder: folder)
            #expect(try next.tryLock(as: "Scripts/workshop check 10"))
            #expect(next.stopLeftovers() == [left.pid])
            #expect(left.wait() == 128 + SIGKILL)
            #expect(kept.poll() == nil, "a process that was not recorded as it is still runs")
            next.unlock()
        }
    #endif

    @Test("the schemes and the session table are what sync writes from the exercises' folders")
    func generatedFilesUpToDate() throws {
        let workshop = try Workshop(root: Fixture.root)
        #expect(Generated.problems(in: workshop).isEmpty, "\(Generated.problems(in: workshop))")
        // Each scheme builds its exercise and tests its tests, nothing else.
        let scheme = Generated.scheme(of: try repositoryExercise(5))
        #expect(scheme.contains(#"BlueprintIdentifier = "Exercise5""#))
        #expect(scheme.contains(#"BlueprintIdentifier = "Exercise5Tests""#))
        #expect(!scheme.contains("Exercise4"))
    }
}
