import Foundation
import Testing

/// Every test a README cites as proof exists under the name it is cited by, in a file of the
/// suite's name, in the folder of the chapter whose claim it proves (`TestCitations` says how).
// Serialized: the tests read the repository's files on a thread of Swift's cooperative pool,
// which has one thread per core; one at a time, they hold at most one of those threads.
@Suite("READMEs cite tests by their real names", .serialized)
struct ReadmeCitationTests {
    @Test(
        "each chapter README cites suites and tests that exist, each in a file of its name, in its chapter's folder",
        arguments: ChapterFolders.all)
    func chapterReadmeCitesRealTests(chapter: ChapterFolders.Chapter) throws {
        let text = try String(contentsOf: chapter.readme, encoding: .utf8)
        let problems = TestCitations.problems(
            TestCitations.citations(in: text), files: TestCitations.files
        ) { folder in
            // The chapter's own folder, or one that no chapter owns.
            TestCitations.chapterNumber(ofFolder: folder).map { $0 == chapter.number } ?? true
        }
        #expect(problems.isEmpty, "Chapters/\(chapter.folder)/README.md:\n\(problems.joined(separator: "\n"))")
        let byDisplayName = TestCitations.displayNameCitations(in: text)
        #expect(
            byDisplayName.isEmpty,
            "Chapters/\(chapter.folder)/README.md, lines \(byDisplayName): cite a test as `Suite.test`, not by its title"
        )
    }

    @Test(
        "the top README and the tests' README cite suites and tests that exist, each in a file of its name",
        arguments: ["README.md", "Tests/README.md"])
    func sharedReadmeCitesRealTests(path: String) throws {
        let text = try String(contentsOf: Transcript.packageRoot.appendingPathComponent(path), encoding: .utf8)
        let problems = TestCitations.problems(
            TestCitations.citations(in: text), files: TestCitations.files, allowedFolders: { _ in true })
        #expect(problems.isEmpty, "\(path):\n\(problems.joined(separator: "\n"))")
    }

    @Test("each test file holds one suite at most, named as the file is")
    func oneSuitePerFile() {
        let files = TestCitations.files.filter { $0.path.hasPrefix("Tests/PlaygroundTests/") }
        #expect(files.count > 50, "found only \(files.count) test files")
        for file in files {
            #expect(
                file.suites.count <= 1, "\(file.path) holds \(file.suites.count) suites: give each a file of its own")
            if let suite = file.suites.first {
                #expect(suite == file.name, "\(file.path) holds the suite \(suite): name one after the other")
            }
        }
    }

    @Test("the check fails on a missing suite or test, a suite in another file, and another chapter's folder")
    func checkFindsEachProblem() {
        let files = [
            TestCitations.declarations(
                path: "Tests/PlaygroundTests/02-ManualState/GoodTests.swift",
                text: """
                    @Suite("good")
                    struct GoodTests {
                        @Test("it works")
                        func works() {}
                    }
                    extension GoodTests {
                        @Suite("nested")
                        struct NestedTests {
                            @Test func alsoWorks() {}
                        }
                    }
                    """),
            TestCitations.declarations(
                path: "Tests/PlaygroundTests/03-Cancellation/OtherChapterTests.swift",
                text: "@Suite struct OtherChapterTests {\n    @Test func elsewhere() {}\n}"),
        ]
        let readme = """
            `GoodTests.works` and `GoodTests`, then `GoodTests.missing`,
            `NestedTests.alsoWorks`, `AbsentTests`, `OtherChapterTests.elsewhere`;
            `GoodTests.swift` is a file and `PlaygroundTests` a target.
            """
        let citations = TestCitations.citations(in: readme)
        #expect(
            citations.map(\.suite) == [
                "GoodTests", "GoodTests", "GoodTests", "NestedTests", "AbsentTests", "OtherChapterTests",
            ])
        let problems = TestCitations.problems(citations, files: files) { folder in
            TestCitations.chapterNumber(ofFolder: folder).map { $0 == 2 } ?? true
        }
        #expect(
            problems == [
                "line 1: `GoodTests.missing`: Tests/PlaygroundTests/02-ManualState/GoodTests.swift has no test missing",
                "line 2: `NestedTests.alsoWorks`: declared in Tests/PlaygroundTests/02-ManualState/GoodTests.swift, not in a file of its name",
                "line 2: `AbsentTests`: no suite of that name",
                "line 2: `OtherChapterTests.elsewhere`: in Tests/PlaygroundTests/03-Cancellation/OtherChapterTests.swift, another chapter's folder",
            ])
        #expect(TestCitations.displayNameCitations(in: "a\n(test \"it works\")\nb") == [2])
    }
}
