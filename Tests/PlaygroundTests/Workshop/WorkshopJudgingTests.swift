import AsyncOperations
import Foundation
import TestSupport
import Testing

// kvo pairs checked by hand: the unpaired calls here are the mistakes the judges must report.

/// The workshop's tests judge through TestSupport: these check the judges themselves, and
/// that the workshop's files say what its runner and its learners rely on.
@Suite("Workshop — the judges, and the files beside each exercise")
struct WorkshopJudgingTests {
    /// Chapters/Workshop, from this file: Tests/PlaygroundTests/Workshop/ThisFile.swift.
    static let workshop: URL = {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        return root.appendingPathComponent("Chapters/Workshop")
    }()

    /// Every exercise's folder, e.g. "02-ManualState".
    static func exerciseFolders() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: workshop.path)
            .filter { $0.first?.isNumber == true }
            .sorted()
    }

    static func swiftFiles(in folder: String, _ subfolder: String) -> [(name: String, text: String)] {
        let url = workshop.appendingPathComponent(folder).appendingPathComponent(subfolder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0.hasSuffix(".swift") }.sorted().compactMap { name in
            (try? String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)).map { (name, $0) }
        }
    }

    @Test("every hint section that a test's message names is a heading of that exercise's Hint.md")
    func hintSectionsExist() throws {
        for folder in try Self.exerciseFolders() {
            let hint = try String(
                contentsOf: Self.workshop.appendingPathComponent("\(folder)/Reference/Hint.md"), encoding: .utf8)
            let headings = Set(hint.split(separator: "\n").filter { $0.hasPrefix("## ") }.map { $0.dropFirst(3) })
            for file in Self.swiftFiles(in: folder, "Tests") {
                // hint: "Name" in a multi-line string, hint: \"Name\" in a one-line one.
                for match in file.text.matches(of: /hint: \\?"([^"\\]+)\\?"/) where !headings.contains(match.output.1) {
                    Issue.record(
                        "\(folder)/Tests/\(file.name) names the hint section \"\(match.output.1)\", which Hint.md lacks"
                    )
                }
            }
        }
    }

    static func files(in folder: String, _ subfolder: String, ending: String) -> [(name: String, text: String)] {
        let url = workshop.appendingPathComponent(folder).appendingPathComponent(subfolder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0.hasSuffix(ending) }.sorted().compactMap { name in
            (try? String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)).map { (name, $0) }
        }
    }

    @Test("every wrong answer says what it gets wrong and names tests that exist; every alternative says its style")
    func wrongAnswersAndAlternativesDeclareThemselves() throws {
        for folder in try Self.exerciseFolders() {
            let tests = Self.swiftFiles(in: folder, "Tests").map(\.text).joined(separator: "\n")
            let checksRaces = FileManager.default.fileExists(
                atPath: Self.workshop.appendingPathComponent("\(folder)/Reference/Race.md").path)
            let wrongAnswers = Self.files(in: folder, "WrongAnswers", ending: ".diff")
            #expect(wrongAnswers.count >= 2, "\(folder) has \(wrongAnswers.count) wrong answers; at least two")
            #expect(Self.swiftFiles(in: folder, "WrongAnswers").isEmpty, "\(folder): wrong answers are .diff files")
            for file in wrongAnswers {
                let lines = file.text.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(lines.first?.hasPrefix("Wrong answer: ") == true, "\(folder)/WrongAnswers/\(file.name): line 1")
                guard lines.count > 1, lines[1].hasPrefix("Caught by: ") else {
                    Issue.record("\(folder)/WrongAnswers/\(file.name): line 2 must be Caught by: <test function>, ...")
                    continue
                }
                for name in lines[1].dropFirst("Caught by: ".count).split(separator: ",") {
                    let function = name.trimmingCharacters(in: .whitespaces)
                    if function == "ThreadSanitizer" {
                        #expect(
                            checksRaces,
                            "\(folder)/WrongAnswers/\(file.name): caught by the race detector, but \(folder) has no Reference/Race.md"
                        )
                    } else if !tests.contains("func \(function)(") {
                        Issue.record(
                            "\(folder)/WrongAnswers/\(file.name) is caught by \(function), which \(folder)/Tests lacks")
                    }
                }
            }
            for file in Self.files(in: folder, "Alternatives", ending: ".diff") {
                #expect(
                    file.text.hasPrefix("Alternative: "), "\(folder)/Alternatives/\(file.name): line 1 Alternative: ")
            }
            #expect(Self.swiftFiles(in: folder, "Alternatives").isEmpty, "\(folder): alternatives are .diff files")
        }
    }

    @Test("every equivalent mutant an exercise lists names it in backticks, then gives a reason")
    func equivalentMutantsGiveReasons() throws {
        for folder in try Self.exerciseFolders() {
            let file = Self.workshop.appendingPathComponent("\(folder)/Reference/EquivalentMutants.md")
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") where line.hasPrefix("- ") {
                // `Scripts/workshop mutants` reads "- `<name>` — <reason>" (Chapters/Workshop/README.md).
                #expect(
                    line.wholeMatch(of: /- `[^`]+` — \S.*/) != nil,
                    "\(folder)/Reference/EquivalentMutants.md: \(line)")
            }
        }
    }

    @Test("no comment sits right above an expectation: Swift Testing would show it as the failure's message")
    func noCommentAboveAnExpectation() throws {
        for folder in try Self.exerciseFolders() {
            for file in Self.swiftFiles(in: folder, "Tests") {
                let lines = file.text.split(separator: "\n", omittingEmptySubsequences: false)
                for (index, line) in lines.enumerated() where index > 0 {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard code.contains("#expect(") || code.contains("#require(") else { continue }
                    let above = lines[index - 1].trimmingCharacters(in: .whitespaces)
                    #expect(
                        !above.hasPrefix("//"),
                        "\(folder)/Tests/\(file.name):\(index): a comment right above an expectation becomes its message"
                    )
                }
            }
        }
    }

    @Test("the announcement watch sees every call as it runs, whatever its form: self., a loop, a helper, a key path")
    func watchSeesEveryForm() throws {
        try #require(AnnouncementWatch.seesAnnouncements, "this build cannot see announcements (an optimised build?)")
        let operation = ScriptedOperation()
        let watch = AnnouncementWatch(of: operation)
        operation.announceInEveryForm()
        #expect(
            watch.events.map { "\($0.change == .will ? "will" : "did") \($0.key)" } == [
                "will isExecuting", "did isExecuting", "will isFinished", "did isFinished", "will isExecuting",
                "will isFinished", "did isExecuting", "did isFinished", "will isFinished", "did isFinished",
            ],
            "\(watch.calls())")
        let unwatched = ScriptedOperation()
        unwatched.announceInEveryForm()
        #expect(watch.events.count == 10, "a watch records only its own operation's calls")
    }

    @Test("the watch's judge wants each will before the change and its did after it, paired on one thread")
    func watchJudgement() throws {
        try #require(AnnouncementWatch.seesAnnouncements, "this build cannot see announcements (an optimised build?)")
        let finishing = [
            AnnouncementWatch.Change("isExecuting", from: true, to: false),
            AnnouncementWatch.Change("isFinished", from: false, to: true),
        ]
        /// The problems with these steps: (a call, or nil for none) made after the state is set.
        func problems(_ steps: [(AnnouncementWatch.Event.Change?, String, executing: Bool, finished: Bool)]) -> [String]
        {
            let operation = ScriptedOperation()
            operation.state.withLock { $0 = (true, false) }
            let watch = AnnouncementWatch(of: operation)
            for (change, key, executing, finished) in steps {
                operation.state.withLock { $0 = (executing, finished) }
                if let change { operation.announce(change, key) }
            }
            return watch.problems(in: "finish()", changes: finishing)
        }
        let right = problems([
            (.will, "isExecuting", true, false), (.will, "isFinished", true, false),
            (.did, "isExecuting", false, true), (.did, "isFinished", false, true),
        ])
        #expect(right.isEmpty, "\(right)")
        let oneAtATime = problems([
            (.will, "isExecuting", true, false), (.did, "isExecuting", false, false),
            (.will, "isFinished", false, false), (.did, "isFinished", false, true),
        ])
        #expect(oneAtATime.isEmpty, "\(oneAtATime)")
        let alsoAroundNoChange = problems([
            (.will, "isExecuting", true, false), (.will, "isFinished", true, false),
            (.did, "isExecuting", false, true), (.did, "isFinished", false, true),
            (.will, "isExecuting", false, true), (.did, "isExecuting", false, true),
        ])
        #expect(
            alsoAroundNoChange.isEmpty, "a key announced though its value stays is no problem: \(alsoAroundNoChange)")
        let didsAlone = problems([
            (nil, "", false, true), (.did, "isExecuting", false, true), (.did, "isFinished", false, true),
        ])
        #expect(didsAlone.count == 1 && didsAlone[0].contains("with no willChangeValue"), "\(didsAlone)")
        let unpairedWill = problems([
            (.will, "isExecuting", true, false), (.will, "isFinished", true, false),
            (.did, "isFinished", false, true),
        ])
        #expect(unpairedWill.count == 1 && unpairedWill[0].contains("no didChangeValue"), "\(unpairedWill)")
        let willsLate = problems([
            (.will, "isExecuting", false, true), (.will, "isFinished", false, true),
            (.did, "isExecuting", false, true), (.did, "isFinished", false, true),
        ])
        #expect(willsLate.count == 1 && willsLate[0].contains("already said the new value"), "\(willsLate)")
        let didsEarly = problems([
            (.will, "isExecuting", true, false), (.will, "isFinished", true, false),
            (.did, "isExecuting", true, false), (.did, "isFinished", true, false),
        ])
        #expect(didsEarly.count == 1 && didsEarly[0].contains("still said the old value"), "\(didsEarly)")
        let misspelled = problems([
            (.will, "executing", true, false), (.will, "finished", true, false),
            (.did, "executing", false, true), (.did, "finished", false, true),
        ])
        #expect(misspelled.first?.contains("\"executing\", \"finished\" instead") == true, "\(misspelled)")
    }

    @Test("the watch sees the getters' lock held while the operation announces")
    func watchSeesTheLockHeld() throws {
        try #require(AnnouncementWatch.seesAnnouncements, "this build cannot see announcements (an optimised build?)")
        let operation = ScriptedOperation()
        let watch = AnnouncementWatch(of: operation, getterPatience: 0.2)
        operation.state.withLock { _ in operation.announce(.will, "isFinished") }
        operation.announce(.did, "isFinished")
        let problems = watch.lockProblems(in: "finish()")
        #expect(
            problems.count == 1 && problems[0].contains("willChangeValue(forKey: \"isFinished\") (call 1)"),
            "\(problems)")
        #expect(watch.events.last?.state == nil, "once the getters did not answer, the watch stops asking")
    }

    #if os(Linux)
        @Test(
            "ThreadActivity tells a wait with no time limit from a timed wait, a sleep, a loop that sleeps, and a spin")
        func threadActivity() throws {
            try #require(ThreadActivity.tellsWaitsApart, "this kernel cannot tell")
            let never = DispatchSemaphore(value: 0)
            let stop = Locked(false)
            let cases: [(String, @Sendable () -> Void, (ThreadActivity) -> Bool)] = [
                ("semaphore", { never.wait() }, { if case .waitingWithoutLimit = $0 { true } else { false } }),
                (
                    "timed", { _ = never.wait(timeout: .now() + 60) },
                    { if case .waitingWithLimit = $0 { true } else { false } }
                ),
                (
                    "sleep", { Thread.sleep(forTimeInterval: 60) },
                    { if case .waitingWithLimit = $0 { true } else { false } }
                ),
                (
                    "poll", { while !stop.withLock({ $0 }) { usleep(1_000) } },
                    { if case .wakingRepeatedly = $0 { true } else { false } }
                ),
                ("spin", { while !stop.withLock({ $0 }) {} }, { $0 == .running }),
            ]
            for (name, body, expected) in cases {
                let thread = Locked<ThreadActivity.KernelThread?>(nil)
                Thread {
                    thread.withLock { $0 = .current }
                    body()
                }.start()
                var kernelThread: ThreadActivity.KernelThread?
                while kernelThread == nil { kernelThread = thread.withLock { $0 } }
                let seen = ThreadActivity.settled(kernelThread!, runningFor: 0.3)
                #expect(expected(seen), "\(name): \(seen)")
            }
            stop.withLock { $0 = true }
            for _ in 0..<3 { never.signal() }  // the two waits end; the sleep ends in its own time
        }
    #endif
}

/// An operation whose getters say what the test sets, and which announces what the test asks,
/// in every form a learner may write. On a Mac, it passes its calls to the watch itself.
private final class ScriptedOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: `state` is a Locked.
    let state = Locked((executing: false, finished: false))
    override var isExecuting: Bool { state.withLock { $0.executing } }
    override var isFinished: Bool { state.withLock { $0.finished } }

    func announce(_ change: AnnouncementWatch.Event.Change, _ key: String) {
        switch change {
        case .will: willChangeValue(forKey: key)
        case .did: didChangeValue(forKey: key)
        }
    }

    /// will/did "isExecuting" with self., "isFinished" with key paths (on Linux), both in loops,
    /// then through a helper.
    func announceInEveryForm() {
        self.willChangeValue(forKey: "isExecuting")
        self.didChangeValue(forKey: "isExecuting")
        #if os(Linux)
            // Linux's Foundation maps the key path to "isFinished"; a Mac's key-value observing
            // names it after the Objective-C property, "finished" (read, not run): not a form the
            // exercises accept there.
            willChangeValue(for: \.isFinished)
            didChangeValue(for: \.isFinished)
        #else
            willChangeValue(forKey: "isFinished")
            didChangeValue(forKey: "isFinished")
        #endif
        let keys = ["isExecuting", "isFinished"]
        for key in keys { willChangeValue(forKey: key) }
        for key in keys { didChangeValue(forKey: key) }
        changing("isFinished") {}
    }

    private func changing(_ key: String, _ change: () -> Void) {
        willChangeValue(forKey: key)
        change()
        didChangeValue(forKey: key)
    }

    #if !os(Linux)
        override func willChangeValue(forKey key: String) {
            AnnouncementWatch.announce(.will, key, by: self) { super.willChangeValue(forKey: key) }
        }

        override func didChangeValue(forKey key: String) {
            AnnouncementWatch.announce(.did, key, by: self) { super.didChangeValue(forKey: key) }
        }
    #endif
}
