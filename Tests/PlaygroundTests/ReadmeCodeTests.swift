import Foundation
import Testing

/// Every ```swift block of every README is the code that runs: word for word, in one Swift file
/// of the package (`ReadmeCode` says what an excerpt may leave out). A block marked
/// `does-not-compile` is compiled instead, and fails with what its README says the compiler says.
///
/// Every README.md of the package is read: each chapter's, the top one, the contract kit's, the
/// workshop's, the tests' — those without a ```swift block pass as they are. (The documentation
/// catalogs' articles, `*.docc/*.md`, are not READMEs: their code is a reader's own operation.)
// Serialized: the tests read the repository's files on a thread of Swift's cooperative pool,
// which has one thread per core; one at a time, they hold at most one of those threads.
@Suite("Every ```swift block of a README is the code that runs", .serialized)
struct ReadmeCodeTests {
    static let readmes = ReadmeCode.readmes

    @Test("each ```swift block is in one file of the package, word for word", arguments: readmes)
    func blocksAreTheCode(readme: String) throws {
        let text = try String(contentsOf: Transcript.packageRoot.appendingPathComponent(readme), encoding: .utf8)
        let problems = ReadmeCode.blocks(in: text, readme: readme).compactMap {
            ReadmeCode.problem(with: $0, in: ReadmeCode.sources)
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("the READMEs hold the blocks the check expects: it cannot pass by finding none")
    func blocksAreFound() throws {
        #expect(Self.readmes.contains("README.md"))
        #expect(Self.readmes.contains("Chapters/07-ChainedOperations/README.md"))
        #expect(ReadmeCode.sources.count > 200, "found only \(ReadmeCode.sources.count) Swift files")
        var blocks: [ReadmeCode.Block] = []
        for readme in Self.readmes {
            let text = try String(contentsOf: Transcript.packageRoot.appendingPathComponent(readme), encoding: .utf8)
            blocks += ReadmeCode.blocks(in: text, readme: readme)
        }
        #expect(blocks.count >= 30, "found only \(blocks.count) ```swift blocks")
        #expect(blocks.contains { $0.mustNotCompile }, "no block marked does-not-compile")
    }

    #if os(macOS) || os(Linux)
        @Test(
            "a block marked does-not-compile fails to compile, with what its README quotes",
            .enabled(if: SwiftCompiler.command != nil, "no swiftc on PATH (or xcrun on a Mac) to compile it with"),
            arguments: readmes)
        func blocksThatMustNotCompile(readme: String) async throws {
            let text = try String(contentsOf: Transcript.packageRoot.appendingPathComponent(readme), encoding: .utf8)
            for block in ReadmeCode.blocks(in: text, readme: readme) where block.mustNotCompile {
                let place = "\(readme):\(block.line)"
                try #require(
                    !block.compilerSays.isEmpty, "\(place): no ```text block after it says what the compiler says")
                let compiler = try await SwiftCompiler.importedBy(block.source)
                defer { compiler.removeFolder() }
                let said = try await compiler.typecheck(block.source)
                #expect(!said.isEmpty, "\(place): the block compiles")
                for line in block.compilerSays {
                    #expect(said.contains(line), "\(place): the compiler does not say \"\(line)\"; it said:\n\(said)")
                }
            }
        }
    #endif

    // MARK: The check itself

    static let file = ReadmeCode.SourceFile(
        path: "Chapters/09-Example/Example/Example.swift",
        code: ReadmeCode.code(
            of: """
                import Foundation

                /// An example.
                public final class Example {
                    // Why it is so.
                    public func run(_ steps: Int) -> Int {
                        var total = 0
                        for step in 1...steps { total += step }  // adds them up
                        return total
                    }
                }
                """.components(separatedBy: "\n").enumerated().map { ReadmeCode.Line(number: $0 + 1, text: $1) }))

    static func problem(_ block: String) -> String? {
        let readme = "```swift\n\(block)\n```\n"
        return ReadmeCode.blocks(in: readme, readme: "README.md").first.flatMap {
            ReadmeCode.problem(with: $0, in: [file])
        }
    }

    @Test("a block passes word for word, dedented, with comments and blank lines of its own, or with … for the rest")
    func excerptsThatPass() {
        #expect(Self.problem("public func run(_ steps: Int) -> Int {\n    var total = 0") == nil)
        #expect(
            Self.problem("// My note\nvar total = 0\n\nfor step in 1...steps { total += step }  // adds them up") == nil
        )
        #expect(Self.problem("for step in 1...steps { …\nreturn total") == nil)
        #expect(Self.problem("public final class Example {\n    …\n    return total") == nil)
    }

    @Test("a block fails on a changed, reordered or missing line, naming the README line and the nearest file")
    func blocksThatFail() {
        let changed = Self.problem("public func run(_ steps: Int) -> Int {\n    var total = 1")
        #expect(changed?.contains("README.md:3:") == true, "\(changed ?? "passed")")
        #expect(changed?.contains("Nearest file: Chapters/09-Example/Example/Example.swift") == true)
        #expect(changed?.contains("after its line 6") == true, "\(changed ?? "passed")")
        #expect(Self.problem("var total = 0\npublic func run(_ steps: Int) -> Int {") != nil)
        #expect(Self.problem("for step in 1...steps { total += step }") != nil)  // its trailing comment is code
        #expect(Self.problem("let answer = 42")?.contains("no Swift file of the package has this line") == true)
        #expect(Self.problem("for step in … { total += step }")?.contains("only for the rest of a line") == true)
        #expect(Self.problem("var total = 0\nreturn total") != nil)  // lines left out without a … line
    }

    @Test("a block marked does-not-compile is not looked for, and takes the ```text block after it")
    func blocksThatMustNotCompileAreRead() throws {
        let readme = "```swift does-not-compile\nlet x: Int = \"text\"\n```\n```text\nerror: cannot convert\n```\n"
        let block = try #require(ReadmeCode.blocks(in: readme, readme: "README.md").first)
        #expect(block.mustNotCompile)
        #expect(block.compilerSays == ["error: cannot convert"])
        #expect(ReadmeCode.problem(with: block, in: []) == nil)
    }
}
