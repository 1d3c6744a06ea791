import Foundation
import Testing

/// Package.swift holds the one list of chapters, one call each: `chapter(N, "Name", …)` makes the
/// folder `Chapters/NN-Name`, its library and its executable `chapterN`. Everything else is the
/// folders (the transcript, picture and citation tests, `Scripts/run-all`, `Scripts/draw-timelines`)
/// or is checked against them here: the top README's table and each chapter's "Next" link.
// Serialized: the tests read the repository's files on a thread of Swift's cooperative pool,
// which has one thread per core; one at a time, they hold at most one of those threads.
@Suite("One list of chapters: Package.swift's, and the folders it names", .serialized)
struct ChapterListTests {
    @Test("Package.swift lists every chapter folder, in order, and no other")
    func packageListsEveryFolder() throws {
        let manifest = try String(
            contentsOf: Transcript.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let listed = ChapterList.chapters(inManifest: manifest)
        #expect(!listed.isEmpty, "Package.swift has no line `chapter(N, \"Name\"…)`")
        #expect(
            listed.map(\.folder) == ChapterFolders.all.map(\.folder),
            "Package.swift's chapters (\(listed.map(\.folder))) are not the folders of Chapters")
        #expect(listed.map(\.number) == Array(0..<listed.count), "chapters are numbered 0, 1, 2, … in order")
    }

    @Test("the top README's table has a row for every chapter, in order: its README and `swift run chapterN`")
    func readmeTableListsEveryChapter() throws {
        let readme = try String(contentsOf: Transcript.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let rows = ChapterList.tableRows(inReadme: readme)
        #expect(rows.map(\.number) == ChapterFolders.all.map(\.number), "README.md's chapter table: its rows' numbers")
        for chapter in ChapterFolders.all {
            guard let row = rows.first(where: { $0.number == chapter.number }) else { continue }
            #expect(
                row.link == "Chapters/\(chapter.folder)/README.md", "README.md, chapter \(chapter.number): its link")
            #expect(row.run == "swift run \(chapter.executable)", "README.md, chapter \(chapter.number): its command")
            let title = try ChapterList.title(of: chapter)
            #expect(
                title.hasPrefix("Chapter \(chapter.number) — \(row.title)"),
                "README.md, chapter \(chapter.number): \"\(row.title)\" is not how its README's title begins, \"\(title)\""
            )
        }
    }

    @Test(
        "each chapter README is titled `Chapter N — …` and its Next section links the next chapter; the last one none",
        arguments: ChapterFolders.all)
    func nextLinksTheNextChapter(chapter: ChapterFolders.Chapter) throws {
        let readme = try String(contentsOf: chapter.readme, encoding: .utf8)
        #expect(try ChapterList.title(of: chapter).hasPrefix("Chapter \(chapter.number) — "))
        let next = try #require(ChapterList.nextSection(inReadme: readme), "\(chapter.folder)/README.md has no ## Next")
        let linked = ChapterList.chapterLinks(in: next)
        guard let following = ChapterFolders.all.first(where: { $0.number > chapter.number }) else {
            #expect(linked.isEmpty, "the last chapter's Next links a chapter: \(linked.map(\.target))")
            return
        }
        let first = try #require(linked.first, "\(chapter.folder)/README.md's Next links no chapter")
        #expect(first.target == "../\(following.folder)/README.md", "\(chapter.folder)/README.md's Next")
        #expect(
            try ChapterList.title(of: following).hasPrefix(first.text),
            "\(chapter.folder)/README.md's Next says \"\(first.text)\"; the next README's title begins otherwise")
    }

    @Test("the checks fail on a missing row, a wrong link or command, and a Next link to the wrong chapter")
    func checksCanFail() {
        let manifest = """
            let chapters: [Target] =
                chapter(0, "First")
                + chapter(1, "Second", finishing: "Extra", uses: ["Extra"])
                + chapter(
                    3, "Fourth")
            """
        #expect(ChapterList.chapters(inManifest: manifest).map(\.folder) == ["00-First", "01-Second", "03-Fourth"])
        let readme = """
            ## Chapters
            | # | Chapter | Run | What it shows |
            | --- | --- | --- | --- |
            | 0 | [First](Chapters/00-First/README.md) | `swift run chapter0` | one |
            | 2 | [Third](Chapters/02-Third/README.md) | `swift run chapter3` | three |

            ## More
            | 9 | [Not a chapter](elsewhere) | `x` | y |
            """
        let rows = ChapterList.tableRows(inReadme: readme)
        #expect(rows.map(\.number) == [0, 2])
        #expect(rows.last?.run == "swift run chapter3")
        let next = ChapterList.nextSection(
            inReadme: "# Chapter 1 — A\n\n## Next\n[Chapter 3 — C](../03-C/README.md): on.\n")
        #expect(next.map(ChapterList.chapterLinks)?.map(\.target) == ["../03-C/README.md"])
        #expect(ChapterList.chapterLinks(in: "[the README](../../README.md)").isEmpty)
    }
}

/// Reading the lists of chapters that Package.swift and the READMEs hold.
enum ChapterList {
    /// The chapters of `manifest`, from its calls `chapter(N, "Name"…)`, with the folders they name.
    static func chapters(inManifest manifest: String) -> [ChapterFolders.Chapter] {
        ChapterManifest.calls(in: manifest).map { ChapterFolders.Chapter(number: $0.number, folder: $0.folder) }
    }

    /// A row of the top README's table of chapters.
    struct Row {
        let number: Int
        let title: String
        let link: String
        let run: String
    }

    /// The rows of the table under `## Chapters`: `| N | [Title](link) | `command` | … |`.
    static func tableRows(inReadme readme: String) -> [Row] {
        guard let section = section("Chapters", inReadme: readme) else { return [] }
        return section.components(separatedBy: "\n").compactMap { line in
            guard let match = line.wholeMatch(of: /\| ([0-9]+) \| \[([^\]]+)\]\(([^)]+)\) \| `([^`]+)` \|.*/)
            else { return nil }
            return Int(match.output.1).map {
                Row(
                    number: $0, title: String(match.output.2), link: String(match.output.3), run: String(match.output.4)
                )
            }
        }
    }

    /// The text of a README's `## Next` section.
    static func nextSection(inReadme readme: String) -> String? { section("Next", inReadme: readme) }

    /// The links of `text` to a chapter's README (`../NN-Name/README.md`), in order.
    static func chapterLinks(in text: String) -> [(text: String, target: String)] {
        text.matches(of: /\[([^\]]+)\]\((\.\.\/[0-9][0-9]-[A-Za-z0-9]+\/README\.md)\)/).map {
            (String($0.output.1), String($0.output.2))
        }
    }

    /// A chapter README's title: its first line without the `# `.
    static func title(of chapter: ChapterFolders.Chapter) throws -> String {
        let readme = try String(contentsOf: chapter.readme, encoding: .utf8)
        return String(readme.prefix { $0 != "\n" }.dropFirst("# ".count))
    }

    /// The lines after `## name`, up to the next `## ` heading.
    private static func section(_ name: String, inReadme readme: String) -> String? {
        let lines = readme.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "## \(name)") else { return nil }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { $0.hasPrefix("## ") } ?? rest.endIndex
        return rest[..<end].joined(separator: "\n")
    }
}
