import AsyncOperations
import Foundation
import TestSupport
import Testing

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

    // kvo pairs checked by hand: the strings in this test are source code for the check under
    // test, some of it in the wrong order on purpose; this file announces nothing itself.
    @Test("the source check (Linux) wants each will before the change and its did after it, in the file")
    func sourceOrder() {
        func problems(_ code: String) -> [String] {
            ExerciseSource(code: code, path: "File.swift").orderProblems()
        }
        let right = [
            // one by one, nested, in loops, through a helper, one change at a time, with defer
            """
            willChangeValue(forKey: "isExecuting"); willChangeValue(forKey: "isFinished")
            lock.withLock { executing = false; finished = true }
            didChangeValue(forKey: "isExecuting"); didChangeValue(forKey: "isFinished")
            """,
            """
            willChangeValue(forKey: "isFinished"); willChangeValue(forKey: "isExecuting")
            lock.withLock { executing = false; finished = true }
            didChangeValue(forKey: "isExecuting"); didChangeValue(forKey: "isFinished")
            """,
            """
            for key in keys { willChangeValue(forKey: key) }
            lock.withLock(change)
            for key in keys { didChangeValue(forKey: key) }
            """,
            """
            func finish() { announcing(keys) { finished = true } }
            func announcing(_ keys: [String], _ change: () -> Void) {
                for key in keys { willChangeValue(forKey: key) }
                lock.withLock(change)
                for key in keys { didChangeValue(forKey: key) }
            }
            """,
            """
            willChangeValue(forKey: "isExecuting"); lock.withLock { executing = false }; didChangeValue(forKey: "isExecuting")
            willChangeValue(forKey: "isFinished"); lock.withLock { finished = true }; didChangeValue(forKey: "isFinished")
            """,
            """
            willChangeValue(forKey: "isFinished")
            defer { didChangeValue(forKey: "isFinished") }
            lock.withLock { finished = true }
            """,
            // inside a recursive lock: the order is right (another test sees the lock held)
            """
            lock.withLock {
                willChangeValue(forKey: "isFinished"); finished = true; didChangeValue(forKey: "isFinished")
            }
            """,
        ]
        for code in right { #expect(problems(code).isEmpty, "\(code)\n\(problems(code))") }
        let willAfter = problems(
            """
            lock.withLock { finished = true }
            willChangeValue(forKey: "isFinished"); didChangeValue(forKey: "isFinished")
            """)
        #expect(willAfter.count == 1 && willAfter[0].contains("nothing changes the state between"), "\(willAfter)")
        let didsFirst = problems(
            """
            didChangeValue(forKey: "isExecuting"); didChangeValue(forKey: "isFinished")
            willChangeValue(forKey: "isExecuting"); willChangeValue(forKey: "isFinished")
            lock.withLock { finished = true }
            """)
        #expect(didsFirst.count == 2 && didsFirst[0].contains("comes before its willChangeValue"), "\(didsFirst)")
    }

    // kvo pairs checked by hand: the strings in this test are source code for the check under
    // test, some of it unbalanced on purpose; this file announces nothing itself.
    @Test("the source check (Linux) pairs will and did by argument, whatever the form")
    func sourcePairing() {
        func problems(_ code: String) -> [String] {
            ExerciseSource(code: code, path: "File.swift").announcementProblems()
        }
        #expect(
            problems(
                """
                for key in keys { willChangeValue(forKey: key) } // a comment: didChangeValue(forKey: "x")
                lock.withLock { finished = true }
                for key in keys { didChangeValue(forKey: key) }
                willChangeValue(for: \\.isFinished); didChangeValue(for: \\.isFinished)
                willChangeValue(forKey: "isExecuting")
                didChangeValue(forKey:"isExecuting")
                """
            ).isEmpty)
        let didAlone = problems(#"didChangeValue(forKey: "isFinished")"#)
        #expect(didAlone.count == 1 && didAlone[0].contains("without willChangeValue"), "\(didAlone)")
        let unbalanced = problems(
            #"willChangeValue(forKey: "isFinished"); willChangeValue(forKey: "isFinished"); didChangeValue(forKey: "isFinished")"#
        )
        #expect(unbalanced.count == 1 && unbalanced[0].contains("2 times"), "\(unbalanced)")
        let anyKey = problems(#"willChangeValue(forKey: "finished"); didChangeValue(forKey: "finished")"#)
        #expect(anyKey.isEmpty, "the source check judges pairs, never a key's spelling: \(anyKey)")
    }

    @Test("the recorder (a Mac) wants each key's will before the change and its did after it")
    func recorderJudgement() {
        let operation = SettableOperation()
        func record(_ steps: [(Announcement.Change?, String, executing: Bool, finished: Bool)]) -> AnnouncementLog {
            let log = AnnouncementLog()
            log.start()
            for (change, key, executing, finished) in steps {
                operation.state.withLock { $0 = (executing, finished) }
                if let change { log.record(change, key, of: operation) }
            }
            return log
        }
        let right = record([
            (.will, "isExecuting", true, false), (.will, "isFinished", true, false),
            (.did, "isExecuting", false, true), (.did, "isFinished", false, true),
        ])
        #expect(right.problems(announcing: "isExecuting", changedTo: false, in: "finish()").isEmpty)
        #expect(right.problems(announcing: "isFinished", changedTo: true, in: "finish()").isEmpty)

        let didAlone = record([(.did, "isFinished", false, true)])
        #expect(
            didAlone.problems(announcing: "isFinished", changedTo: true, in: "finish()").first?.contains("without")
                == true)
        let willLate = record([(.will, "isFinished", false, true), (.did, "isFinished", false, true)])
        #expect(
            willLate.problems(announcing: "isFinished", changedTo: true, in: "finish()").first?.contains(
                "after the change")
                == true)
        let didEarly = record([(.will, "isFinished", true, false), (.did, "isFinished", true, false)])
        #expect(
            didEarly.problems(announcing: "isFinished", changedTo: true, in: "finish()").first?.contains(
                "before the change")
                == true)
        let misspelled = record([(.will, "finished", true, false), (.did, "finished", false, true)])
        #expect(
            misspelled.problems(announcing: "isFinished", changedTo: true, in: "finish()").first?.contains(
                "\"finished\"")
                == true)
    }
}

/// An operation whose getters say what the test sets.
private final class SettableOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: `state` is a Locked.
    let state = Locked((executing: false, finished: false))
    override var isExecuting: Bool { state.withLock { $0.executing } }
    override var isFinished: Bool { state.withLock { $0.finished } }
}
