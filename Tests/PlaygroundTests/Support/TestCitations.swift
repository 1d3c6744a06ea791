import Foundation

/// The tests a README cites as proof, and where they must be.
///
/// A README cites a test as `SuiteName.testName` or a suite as `SuiteName`, in backticks, where
/// a suite's name ends in `Tests` or `RaceDemos`. Each cited suite must be declared in a file of
/// its own name (`SuiteName.swift`), with the cited test in it; a chapter's README finds it in
/// that chapter's folder (`Tests/PlaygroundTests/NN-Name`, named like the chapter's) or in a folder that no chapter owns
/// (the tests of the whole package, its library, the stress test, the pictures, the workshop's
/// exercises). Tests are not cited by their display names: those change with their wording.
enum TestCitations {
    /// A suite or a test named in a README.
    struct Citation: Equatable, CustomStringConvertible {
        let suite: String
        let test: String?
        let line: Int
        var description: String { "line \(line): `\(suite)\(test.map { ".\($0)" } ?? "")`" }
    }

    /// A test file: where it is, relative to the package, and the suites and tests it declares.
    struct TestFile {
        let path: String
        /// In the order the file declares them.
        let suites: [String]
        let tests: Set<String>
        var name: String { String(path.split(separator: "/").last ?? "").replacingOccurrences(of: ".swift", with: "") }
        var folder: String { path.split(separator: "/").dropLast().joined(separator: "/") }
    }

    /// Every Swift test file of the package, read once.
    static let files: [TestFile] = (try? testFiles()) ?? []

    /// The names of the package's test targets, which READMEs name too (`PlaygroundTests`).
    static let targets: Set<String> = {
        let tests = Transcript.packageRoot.appendingPathComponent("Tests")
        return Set((try? FileManager.default.contentsOfDirectory(atPath: tests.path)) ?? [])
    }()

    /// The suites and tests that `text`, a README, cites, with their line numbers.
    static func citations(in text: String) -> [Citation] {
        let pattern = /`([A-Z][A-Za-z0-9]*(?:Tests|RaceDemos))(?:\.([a-z][A-Za-z0-9]*))?`/
        var found: [Citation] = []
        for (index, line) in text.components(separatedBy: "\n").enumerated()
        where line.contains("Tests") || line.contains("RaceDemos") {
            for match in line.matches(of: pattern) {
                let suite = String(match.output.1)
                let test = match.output.2.map(String.init)
                // `ResultOperationTests.swift` names a file, `PlaygroundTests` a test target.
                if test == "swift" || targets.contains(suite) { continue }
                found.append(Citation(suite: suite, test: test, line: index + 1))
            }
        }
        return found
    }

    /// The lines of `text` that cite a test by its display name (`test "…"`), which no check
    /// can tie to a test.
    static func displayNameCitations(in text: String) -> [Int] {
        text.components(separatedBy: "\n").enumerated().compactMap { index, line in
            line.contains(/\btests? "/) ? index + 1 : nil
        }
    }

    /// What is wrong with `citations`, made by a README that may use the tests in
    /// `allowedFolders` (paths relative to the package), given every test file of the package.
    static func problems(_ citations: [Citation], files: [TestFile], allowedFolders: (String) -> Bool) -> [String] {
        citations.compactMap { citation in
            let named = files.filter { $0.name == citation.suite }
            guard !named.isEmpty else {
                let declaring = files.filter { $0.suites.contains(citation.suite) }.map(\.path)
                return declaring.isEmpty
                    ? "\(citation): no suite of that name"
                    : "\(citation): declared in \(declaring.joined(separator: ", ")), not in a file of its name"
            }
            guard let file = named.first(where: { allowedFolders($0.folder) }) else {
                return "\(citation): in \(named.map(\.path).joined(separator: ", ")), another chapter's folder"
            }
            guard file.suites.contains(citation.suite) else {
                return "\(citation): \(file.path) does not declare the suite \(citation.suite)"
            }
            if let test = citation.test, !file.tests.contains(test) {
                return "\(citation): \(file.path) has no test \(test)"
            }
            return nil
        }
    }

    /// Every Swift test file of the package: the playground's tests and the workshop's exercises'.
    static func testFiles() throws -> [TestFile] {
        let root = Transcript.packageRoot
        var paths: [String] = []
        let folders = ["Tests/PlaygroundTests"] + exerciseTestFolders()
        for folder in folders {
            let url = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: url.path) else { continue }
            for case let item as String in walker where item.hasSuffix(".swift") {
                paths.append("\(folder)/\(item)")
            }
        }
        return try paths.sorted().map { path in
            try declarations(path: path, text: String(contentsOf: root.appendingPathComponent(path), encoding: .utf8))
        }
    }

    /// The suites (structs marked `@Suite`) and tests (functions marked `@Test`) that `text`
    /// declares, outside comments and multi-line string literals.
    static func declarations(path: String, text: String) -> TestFile {
        var suites: [String] = []
        var tests: Set<String> = []
        var testPending = false
        var suitePending = false
        var inString = false
        for line in text.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if line.components(separatedBy: "\"\"\"").count % 2 == 0 { inString.toggle() }
            if inString || trimmed.hasPrefix("//") { continue }
            if trimmed.hasPrefix("@Test") { testPending = true }
            if trimmed.hasPrefix("@Suite") { suitePending = true }
            // (Regular expressions only on the few lines that can match: they are slow.)
            if suitePending, trimmed.contains("struct "),
                let match = trimmed.firstMatch(of: /(?:^|[ )])struct ([A-Z][A-Za-z0-9]*)/)
            {
                suites.append(String(match.output.1))
                suitePending = false
            }
            if testPending, trimmed.contains("func "), let match = trimmed.firstMatch(of: /func ([a-z][A-Za-z0-9]*)\(/)
            {
                tests.insert(String(match.output.1))
                testPending = false
            }
        }
        return TestFile(path: path, suites: suites, tests: tests)
    }

    /// The workshop's exercises' test folders, `Chapters/Workshop/NN-Name/Tests`.
    static func exerciseTestFolders() -> [String] {
        let workshop = Transcript.packageRoot.appendingPathComponent("Chapters/Workshop")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: workshop.path)) ?? []
        return names.sorted().map { "Chapters/Workshop/\($0)/Tests" }.filter {
            FileManager.default.fileExists(atPath: Transcript.packageRoot.appendingPathComponent($0).path)
        }
    }

    /// Whether `folder` holds tests of one chapter: `Tests/PlaygroundTests/NN-Name`, named as
    /// the chapter's folder is.
    static func chapterNumber(ofFolder folder: String) -> Int? {
        guard let match = folder.wholeMatch(of: /Tests\/PlaygroundTests\/([0-9][0-9])-[A-Za-z0-9]+/) else { return nil }
        return Int(match.output.1)
    }
}
