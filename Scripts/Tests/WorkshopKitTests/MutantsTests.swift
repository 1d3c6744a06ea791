import Foundation
import Testing
import WorkshopKit

/// `Scripts/workshop mutants`: the operators on Swift text, the equivalents' file, the score
/// and the workshop page's table of scores.
@Suite("Workshop runner — mutants of a solution, and their score")
struct MutantsTests {
    static let source = """
        import Foundation

        /// A counter.
        final class Counter: @unchecked Sendable {
            private let lock = NSLock()
            private var count = 0

            func add(_ amount: Int) -> Int {
                let before = lock.withLock { count }
                lock.withLock {
                    count += amount
                    count += 0
                }
                notify("{ not a block")
                return before
            }

            func notify(_ text: String) {
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    print(text)
                    done.signal()
                }
                done.wait()
            }
        }
        """

    static func mutant(_ name: String) throws -> Mutant {
        try #require(Mutant.all(of: source).first { $0.name == name }, "no mutant \(name)")
    }

    /// The lines of `mutant` that differ from the source's, as a diff without context.
    static func change(_ mutant: Mutant) -> [String] {
        Array(unifiedDiff(from: source, to: mutant.source, oldName: "a", newName: "b", context: 0).dropFirst(2))
            .filter { !$0.hasPrefix("@@") }
    }

    @Test("each operator makes its mutants, named by what they do, where, to which code; each once")
    func operators() throws {
        let mutants = Mutant.all(of: Self.source)
        let names = mutants.map(\.name)
        #expect(Set(names).count == names.count, "names are unique")
        #expect(!mutants.contains { $0.source == Self.source })
        #expect(Set(mutants.map(\.source)).count == mutants.count, "no two mutants are the same code")
        for expected in [
            "delete in add: notify(\"{ not a block\")", "delete in add: lock.withLock { … }",
            "delete in add: count += 0", "swap in add: lock.withLock { … } ⇄ notify(\"{ not a block\")",
            "drop the lock in add: lock.withLock { … }", "drop the lock in add: let before = lock.withLock { count }",
            "into the lock in add: notify(\"{ not a block\")",
            "into the recursive lock in add: notify(\"{ not a block\")",
            "out of the lock in add: count += amount", "out of the lock in add: count += 0",
            "drop the queue hop in notify: DispatchQueue.global().async { … }",
            "out of the queue hop in notify: done.signal()", "into the queue hop in notify: done.wait()",
            "recursive lock in Counter: private let lock = NSLock()", "time limit in notify: done.wait()",
            "no lock for lock in Counter", "rewrite: self. before each member", "rewrite: a Mutex for lock",
        ] {
            #expect(names.contains(expected), "\(expected)\n\(names.joined(separator: "\n"))")
        }
        #expect(
            mutants.filter(\.isRewrite).map(\.name) == [
                "rewrite: self. before each member", "rewrite: a Mutex for lock",
            ])
        // A string's "{" opens no block, and a declaration is not a statement.
        #expect(!names.contains { $0.hasPrefix("delete in Counter: private var count") })
    }

    @Test("the mutants change the code they name, and only it")
    func changes() throws {
        #expect(try Self.change(Self.mutant("delete in add: count += 0")) == ["-            count += 0"])
        #expect(
            try Self.change(Self.mutant("time limit in notify: done.wait()")) == [
                "-        done.wait()", "+        _ = done.wait(timeout: .now() + 1)",
            ])
        #expect(
            try Self.change(Self.mutant("drop the lock in add: let before = lock.withLock { count }")) == [
                "-        let before = lock.withLock { count }", "+        let before = count",
            ])
        let dropped = try Self.mutant("drop the lock in add: lock.withLock { … }").source
        #expect(!dropped.contains("        lock.withLock {\n") && dropped.contains("count += amount"))
        let moved = try Self.mutant("into the lock in add: notify(\"{ not a block\")").source
        #expect(moved.contains("count += 0\n        notify(\"{ not a block\")\n        }"), "\(moved)")
        let out = try Self.mutant("out of the queue hop in notify: done.signal()").source
        #expect(out.contains("print(text)\n        }\n            done.signal()\n        done.wait()"), "\(out)")
        let unlocked = try Self.mutant("no lock for lock in Counter").source
        #expect(unlocked.contains("private let lock = NoLock()") && unlocked.contains("final class NoLock"))
    }

    @Test("only what the learner writes is mutated: the functions where the solution differs from the stub")
    func writtenOverTheStub() {
        // The stub gives notify() and the state; the learner writes add()'s locked block.
        let stub = Self.source.replacingOccurrences(of: "            count += amount\n", with: "")
        let names = Mutant.all(of: Self.source, writtenOver: stub).map(\.name)
        #expect(names.contains("delete in add: count += amount"))
        #expect(names.contains("out of the lock in add: count += 0"), "a given line of the learner's function")
        #expect(names.contains("rewrite: self. before each member"))
        for given in [
            "drop the queue hop in notify: DispatchQueue.global().async { … }", "time limit in notify: done.wait()",
            "recursive lock in Counter: private let lock = NSLock()", "no lock for lock in Counter",
        ] {
            #expect(!names.contains(given), "\(given)\n\(names.joined(separator: "\n"))")
        }
        let untouched = Mutant.all(of: Self.source, writtenOver: Self.source)
        #expect(untouched.allSatisfy { $0.isRewrite }, "nothing written")
    }

    #if os(Linux)
        @Test("every mutant of the example compiles but a few; the rewrites always do", .timeLimit(.minutes(2)))
        func rewritesCompile() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mutants-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            for mutant in Mutant.all(of: Self.source) where mutant.isRewrite || mutant.name.hasPrefix("no lock") {
                let file = folder.appendingPathComponent("Mutant.swift")
                try mutant.source.write(to: file, atomically: true, encoding: .utf8)
                let output = folder.appendingPathComponent("output.txt")
                let compiler = try ChildProcess(
                    ["swiftc", "-typecheck", "-swift-version", "6", file.path],
                    environment: ProcessInfo.processInfo.environment, outputFile: output)
                let status = compiler.wait()
                #expect(
                    status == 0,
                    "\(mutant.name) does not compile:\n\((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
            }
        }
    #endif

    @Test("the mutants of every exercise's solution: some of each operator the solution allows")
    func exercisesHaveMutants() throws {
        let workshop = try Workshop(root: Fixture.root)
        for exercise in workshop.exercises {
            let solution = try String(contentsOf: exercise.solution, encoding: .utf8)
            let mutants = Mutant.all(of: solution)
            #expect(mutants.contains { $0.name.hasPrefix("delete in ") }, "exercise \(exercise.number)")
            if solution.contains("NSLock()") {
                #expect(mutants.contains { $0.name.hasPrefix("recursive lock") }, "exercise \(exercise.number)")
                #expect(mutants.contains { $0.name.hasPrefix("no lock for") }, "exercise \(exercise.number)")
            }
        }
    }

    @Test("the equivalents' file: an item per mutant, its name in backticks, then its reason")
    func equivalentsFile() {
        let listed = EquivalentMutants(
            text: """
                # Exercise 8: equivalent mutants

                Prose, with `code` in it.
                - `recursive lock in Collector: private let lock = NSLock()` — the lock is never taken twice.
                - `swap in init: a ⇄ b` — both are set before use.
                - `delete in complete: x` —
                - `no reason at all`
                - `a hyphen` - instead of the dash
                """)
        #expect(
            listed.reasons == [
                "recursive lock in Collector: private let lock = NSLock()": "the lock is never taken twice.",
                "swap in init: a ⇄ b": "both are set before use.", "delete in complete: x": "",
            ])
        #expect(listed.problems.count == 3, "\(listed.problems)")
    }

    @Test("`equivalent N NAME REASON` records a mutant of the solution, once, in the file the score reads")
    func recordAnEquivalent() throws {
        // A repository with one exercise: its folder, its file, its stub and solution (exercise 8's).
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("equivalent-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("Chapters/Workshop/08-Coordinators")
        for path in ["Exercise8", "Reference"] {
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent(path), withIntermediateDirectories: true)
        }
        try "".write(
            to: root.appendingPathComponent("Chapters/Workshop/Package.swift"), atomically: true, encoding: .utf8)
        try "".write(to: folder.appendingPathComponent("Exercise8/A.swift"), atomically: true, encoding: .utf8)
        let solution = try String(contentsOf: try repositoryExercise(8).solution, encoding: .utf8)
        let stub = try String(contentsOf: try repositoryExercise(8).stub, encoding: .utf8)
        try solution.write(
            to: folder.appendingPathComponent("Reference/Solution.swift"), atomically: true, encoding: .utf8)
        try stub.write(to: folder.appendingPathComponent("Reference/Stub.swift"), atomically: true, encoding: .utf8)
        let exercise = try #require(try Workshop(root: root).exercise(8))
        let name = try #require(Mutant.all(of: solution).first { $0.name.hasPrefix("swap in complete") }).name
        try EquivalentMutants.record(name, because: "the count is read only after both.", of: exercise)
        try EquivalentMutants.record(name, because: "again.", of: exercise)
        let listed = EquivalentMutants.read(exercise)
        #expect(listed.reasons[name] == "again." && listed.problems.isEmpty)
        let text = try String(contentsOf: EquivalentMutants.file(of: exercise), encoding: .utf8)
        #expect(text.hasPrefix("# Exercise 8: equivalent mutants"))
        #expect(text.hasSuffix("they must pass).\n\n- `\(name)` — again.\n"), "\(text)")
        #expect(throws: WorkshopError.self) {
            try EquivalentMutants.record("swap in nothing: a ⇄ b", because: "none.", of: exercise)
        }
    }

    @Test("the score: rejected of those that change behaviour, accepted of the equivalents; the rest reported")
    func score() {
        func mutant(_ name: String, rewrite: Bool = false) -> Mutant {
            Mutant(name: name, source: "a\n\(name)\nc", isRewrite: rewrite)
        }
        let listed = EquivalentMutants(text: "- `swap b` — the order does not matter.\n- `gone` — stale.")
        let score = MutationScore(
            exercise: 8,
            results: [
                (mutant("delete b"), .rejected("fails: errorsInOrder")), (mutant("delete c"), .passed),
                (mutant("swap b"), .passed), (mutant("rewrite: self.", rewrite: true), .rejected("fails: x")),
                (mutant("drop"), .doesNotCompile), (mutant("moved"), .notJudged("killed")),
            ], listed: listed)
        #expect((score.rejected, score.nonEquivalent) == (1, 2))
        #expect((score.equivalentsPassed, score.equivalents) == (1, 2))
        #expect(score.survivors.map(\.name) == ["delete c"])
        #expect(score.rejectedEquivalents.map(\.mutant.name) == ["rewrite: self."])
        #expect(score.notCompiled == ["drop"] && score.stale == ["gone"])
        let report = score.report(solution: "a\nb\nc").joined(separator: "\n")
        #expect(report.contains("1 of 2 mutants rejected; 1 of 2 equivalents accepted; 1 did not compile"))
        #expect(report.contains("Survived (needs a test, or a line in Reference/EquivalentMutants.md): delete c"))
        #expect(report.contains("      -b\n      +delete c"), "the survivor's change, as a diff")
        #expect(report.contains("An equivalent was rejected (it fails: x): rewrite: self."))
        #expect(report.contains("names no mutant of today's solution: gone"))
    }

    @Test("--save writes an exercise's row into the page's table and keeps the others'")
    func table() throws {
        let start = "<!-- The table below is written by `Scripts/workshop mutants --save`. -->"
        let end = "<!-- End of the table written by `Scripts/workshop mutants --save`. -->"
        let page = "intro\n\(start)\n| # | old |\n| --- |\n| 2 | kept |\n| 8 | replaced |\n\(end)\nafter\n"
        var score = MutationScore(exercise: 8, results: [], listed: EquivalentMutants(text: ""))
        score.seconds = 61
        var zero = MutationScore(exercise: 0, results: [], listed: EquivalentMutants(text: ""))
        zero.seconds = 2
        let written = try MutationScore.readme(page, with: [score, zero])
        #expect(written.hasPrefix("intro\n\(start)\n| # | Mutants rejected |"))
        #expect(
            written.contains(
                "| 0 | 0 of 0 | 0 of 0 | 0 | 2 s |\n| 2 | kept |\n| 8 | 0 of 0 | 0 of 0 | 0 | 61 s |\n\(end)\nafter"))
        #expect(throws: WorkshopError.self) { try MutationScore.readme("no markers", with: [score]) }
    }

    @Test("the workshop's page gives every exercise's score")
    func pageHasScores() throws {
        let page = try String(
            contentsOf: Fixture.root.appendingPathComponent("Chapters/Workshop/README.md"), encoding: .utf8)
        #expect(try MutationScore.readme(page, with: []) == page, "the table is as --save writes it")
        let table = try #require(page.components(separatedBy: "mutants --save`. -->").dropFirst().first)
        let numbers = table.split(separator: "\n").compactMap { Int($0.dropFirst(2).prefix { $0.isNumber }) }
        #expect(numbers == (try Workshop(root: Fixture.root)).exercises.map(\.number))
    }
}
