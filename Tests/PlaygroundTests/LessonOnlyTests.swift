import Foundation
import Testing

/// The lesson is the code: a chapter's library holds only what its README teaches. It depends on
/// other chapters' libraries alone, never on a support target (the pictures' recorder,
/// ChapterSupport, TestSupport, …), and none of its files mentions the recorder: the pictures
/// watch the operations from the chapters' executables. Each executable's main.swift asks for its
/// recording in one line of its own.
// Serialized: the tests read the repository's files on a thread of Swift's cooperative pool,
// which has one thread per core; one at a time, they hold at most one of those threads.
@Suite("The chapters' libraries hold only the lesson", .serialized)
struct LessonOnlyTests {
    static let manifest =
        (try? String(contentsOf: Transcript.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8))
        ?? ""
    static let libraries = LessonOnly.libraries(inManifest: manifest)

    @Test("a chapter library depends only on other chapter libraries")
    func librariesDependOnLibrariesOnly() throws {
        #expect(Self.libraries.count > ChapterFolders.all.count, "found only \(Self.libraries.map(\.name))")
        #expect(LessonOnly.problems(inManifest: Self.manifest) == [])
    }

    @Test("no file of a chapter library mentions the recorder or imports a support target", arguments: libraries)
    func filesMentionNoRecorder(library: LessonOnly.Library) throws {
        let folder = Transcript.packageRoot.appendingPathComponent(library.path)
        let files = try #require(FileManager.default.subpaths(atPath: folder.path), "no folder \(library.path)")
        let supportTargets = LessonOnly.supportTargets(inManifest: Self.manifest)
        var read = 0
        for file in files.sorted() {
            guard let text = try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8) else {
                continue  // a folder, or not text
            }
            read += 1
            let problems = LessonOnly.problems(inFile: text, supportTargets: supportTargets)
            #expect(problems.isEmpty, "\(library.path)/\(file): \(problems.joined(separator: "; "))")
        }
        #expect(read > 0, "\(library.path) holds no file")
    }

    @Test(
        "each chapter's main.swift asks for its recording in one line, before its first heading",
        arguments: ChapterFolders.all)
    func mainAsksForItsRecording(chapter: ChapterFolders.Chapter) throws {
        let path = "Chapters/\(chapter.folder)/\(chapter.executable)/main.swift"
        let lines = try String(contentsOf: Transcript.packageRoot.appendingPathComponent(path), encoding: .utf8)
            .components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let asks = lines.indices.filter { lines[$0] == LessonOnly.recordingLine }
        #expect(asks.count == 1, "\(path): \(asks.count) lines `\(LessonOnly.recordingLine)`, not one")
        let firstHeading = lines.firstIndex { $0.hasPrefix("heading(") } ?? lines.count
        #expect(asks.allSatisfy { $0 < firstHeading }, "\(path): the recording is asked for after a heading")
    }

    @Test("the checks fail on a library that depends on a support target, and on a file that mentions the recorder")
    func checksCanFail() {
        let manifest = """
            let chapters: [Target] =
                chapter(0, "First")
                + chapter(
                    1, "Second", finishing: "Base", uses: ["Base", "First", "Recording"], showing: ["ChapterSupport"])
            let support: [Target] = [
                .target(name: "Recording", path: "Chapters/Support/Recording"),
                .target(name: "ChapterSupport", dependencies: ["Recording"], path: "Chapters/Support/ChapterSupport"),
            ]
            func chapter(_ number: Int, _ name: String, finishing: String? = nil, uses: [String] = []) -> [Target] {
                [.target(name: name, dependencies: uses.map { .target(name: $0) } + ["Recording"], path: "Chapters/\\(name)")]
                    + [.executableTarget(name: "chapter\\(number)", dependencies: ["ChapterSupport"])]
            }
            """
        #expect(
            LessonOnly.libraries(inManifest: manifest).map(\.path) == [
                "Chapters/00-First/First", "Chapters/01-Second/Base", "Chapters/01-Second/Second",
            ])
        #expect(
            LessonOnly.problems(inManifest: manifest) == [
                "Second depends on Recording",
                "func chapter(…) names \"Recording\" in a library target, not only the library's own uses",
            ])
        #expect(LessonOnly.supportTargets(inManifest: manifest) == ["Recording", "ChapterSupport"])
        let file = """
            #if canImport(Recording)
                import Recording
            #endif
            import ChapterSupport
            // The pictures' recorder is told nothing.
            """
        #expect(
            LessonOnly.problems(inFile: file, supportTargets: ["Recording", "ChapterSupport"]) == [
                "mentions Recording", "imports Recording", "imports ChapterSupport",
            ])
        #expect(
            LessonOnly.problems(inFile: "import Foundation\nlet recorded = 1\n", supportTargets: ["Recording"]) == [])
    }
}

/// Reads Package.swift's chapter libraries, and what a library may not hold.
enum LessonOnly {
    /// A chapter library: its target's name, its folder, and the targets its line says it uses.
    struct Library: CustomStringConvertible, Sendable {
        let name: String
        let path: String
        let uses: [String]
        var description: String { name }
    }

    /// The line a chapter's main.swift asks for its recording with.
    static let recordingLine = "Timeline.recordIfAsked()"

    /// Words no file of a chapter library says: the recorder of the pictures is not the lesson.
    static let recorderWords = ["Recorder", "Recording"]

    /// Every library of a `chapter(N, "Name", …)` call of the manifest, in order: the one it
    /// finishes (`finishing:`, with no dependency), then its own.
    static func libraries(inManifest manifest: String) -> [Library] {
        ChapterManifest.calls(in: manifest).flatMap { call in
            let finished = call.finishing.map { [Library(name: $0, path: "Chapters/\(call.folder)/\($0)", uses: [])] }
            return (finished ?? []) + [
                Library(name: call.name, path: "Chapters/\(call.folder)/\(call.name)", uses: call.uses)
            ]
        }
    }

    /// The targets the manifest declares by name (`.target(name: "Recording", …)`): support,
    /// tests, tools — none of them a chapter library, which `chapter` and `library` declare.
    static func supportTargets(inManifest manifest: String) -> [String] {
        manifest.matches(of: /\.(?:t|executableT|testT)arget\(\s*name: "([A-Za-z0-9-]+)"/).map { String($0.output.1) }
    }

    /// What makes a chapter library depend on more than other chapter libraries: a `uses:` that
    /// names another target, or `func library` adding a dependency of its own.
    static func problems(inManifest manifest: String) -> [String] {
        let libraries = libraries(inManifest: manifest)
        let names = Set(libraries.map(\.name))
        var problems = libraries.flatMap { library in
            library.uses.filter { !names.contains($0) }.map { "\(library.name) depends on \($0)" }
        }
        // The library targets that `func chapter` makes (`.target(`, not its executables'): their
        // only string literals are paths.
        if let start = manifest.range(of: "func chapter(") {
            let function = manifest[start.lowerBound...]
            let body = function.range(of: "\n}").map { function[..<$0.upperBound] } ?? function
            for target in body.matches(of: /\.target\(/) {
                let call = ChapterManifest.balanced(body[target.range.lowerBound...])
                for literal in call.matches(of: /"((?:[^"\\]|\\.)*)"/) where !literal.output.1.hasPrefix("Chapters/") {
                    problems.append(
                        "func chapter(…) names \"\(literal.output.1)\" in a library target, not only the library's own uses"
                    )
                }
            }
        }
        return problems
    }

    /// What a library's file says that is not the lesson: the recorder's names, or an import of
    /// a support target.
    static func problems(inFile text: String, supportTargets: [String]) -> [String] {
        let mentions = recorderWords.filter { text.contains($0) }.map { "mentions \($0)" }
        let imports = supportTargets.filter { target in
            text.components(separatedBy: "\n").contains {
                $0.trimmingCharacters(in: .whitespaces) == "import \(target)"
            }
        }
        return mentions + imports.map { "imports \($0)" }
    }
}
