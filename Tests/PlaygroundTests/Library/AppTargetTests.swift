import Foundation
import TestSupport
import Testing

// What a learner meets when they copy the base into an app made by Xcode 26, whose targets have
// Default Actor Isolation = MainActor and the upcoming features NonisolatedNonsendingByDefault
// and InferIsolatedConformances: the compiler, run on the files chapter 3's README lists, with
// those settings. (`.ci/app-target` builds and runs them in such a target; this is the part a
// type check can show, and the error a learner sees first.)

#if os(macOS) || os(Linux)
    /// In the slow group: each test compiles the base's sources, twice.
    @Suite(
        "Copy it into your app: the base in a target whose default isolation is MainActor", .slow,
        .enabled(if: AppTargetCompiler.command != nil, "no swiftc on PATH (or xcrun on a Mac) to compile with"))
    struct AppTargetTests {
        private static let base = filesToCopy(for: "AsyncOperation")
        /// Beside the base's.
        private static let taskOperation = filesToCopy(for: "TaskOperation")

        /// The files that chapter 3's README lists to copy for `name`, the first of its table's
        /// row, as paths from the package's root (the base's, in that row, are not among them).
        private static func filesToCopy(for name: String) -> [String] {
            let chapter = "Chapters/03-Cancellation"
            let readme =
                (try? String(
                    contentsOf: Transcript.packageRoot.appendingPathComponent("\(chapter)/README.md"), encoding: .utf8))
                ?? ""
            guard let row = readme.split(separator: "\n").first(where: { $0.hasPrefix("| `\(name)`") }) else {
                return []
            }
            return row.matches(of: /\]\(([^)]+\.swift)\)/).map { match in
                URL(fileURLWithPath: "/\(chapter)/\(match.1)").standardized.path.dropFirst().description
            }
        }

        @Test("without nonisolated, the base does not compile: the error a learner sees first, and its one-word fix")
        func nonisolatedIsTheFix() async throws {
            let compiler = try AppTargetCompiler()
            defer { compiler.removeFolder() }
            try #require(
                Self.base.first?.hasSuffix("/AsyncOperation.swift") == true, "chapter 3's files to copy: \(Self.base)")
            let lesson = try compiler.source(Self.base[0])
            #expect(lesson.contains("\nnonisolated open class AsyncOperation: Operation"))
            let asWritten = lesson.replacingOccurrences(
                of: "\nnonisolated open class AsyncOperation", with: "\nopen class AsyncOperation")
            let said = try await compiler.typecheck(files: [try compiler.write(asWritten)] + [Self.base[1]])
            let first = said.split(separator: "\n").first { $0.contains("error:") }.map(String.init) ?? ""
            #expect(
                first.hasSuffix(
                    "error: main actor-isolated getter for property 'isAsynchronous' has different actor isolation from nonisolated overridden declaration"
                ), "the compiler said: \(said)")

            // A base shaped like the articles': the same first error.
            let articleShaped = try compiler.write(
                """
                import Foundation
                class AsyncOperation: Operation, @unchecked Sendable {
                    override var isAsynchronous: Bool { true }
                }
                """)
            let saidOfIt = try await compiler.typecheck(files: [articleShaped])
            let firstOfIt = saidOfIt.split(separator: "\n").first { $0.contains("error:") }.map(String.init) ?? ""
            #expect(
                firstOfIt.hasSuffix(
                    "error: main actor-isolated getter for property 'isAsynchronous' has different actor isolation from nonisolated overridden declaration"
                ), "the compiler said: \(saidOfIt)")

            // As the package has it, with a subclass written in the app without any annotation.
            let subclass = try compiler.write(
                """
                final class Greeting: AsyncOperation, @unchecked Sendable {
                    override func main() { finish() }
                }
                let greeting = Greeting()
                """)
            #expect(try await compiler.typecheck(files: Self.base + [subclass]) == "")
        }

        @Test("TaskOperation's closure may not touch the app's types without await: they are main-actor isolated")
        func appTypesNeedAwait() async throws {
            let compiler = try AppTargetCompiler()
            defer { compiler.removeFolder() }
            let store = """
                final class Store { var greeting = "Hello" }
                let store = Store()

                """
            try #require(
                Self.taskOperation.contains { $0.hasSuffix("/TaskOperation.swift") },
                "chapter 3's files to copy: \(Self.taskOperation)")
            let withoutAwait = try compiler.write(store + "let operation = TaskOperation { store.greeting }\n")
            let said = try await compiler.typecheck(files: Self.base + Self.taskOperation + [withoutAwait])
            #expect(said.contains("error: expression is 'async' but is not marked with 'await'"), "\(said)")
            let withAwait = try compiler.write(store + "let operation = TaskOperation { await store.greeting }\n")
            #expect(try await compiler.typecheck(files: Self.base + Self.taskOperation + [withAwait]) == "")
        }

        /// SE-0466 leaves the closure rule as it was: a closure that is neither `@Sendable` nor
        /// `sending` takes the isolation of the code that writes it, which in such an app is the
        /// main actor, in any function, not only in top-level code.
        @Test(
            "in an app, a closure that is not @Sendable keeps the main actor wherever it is written; a @Sendable one leaves it"
        )
        func appClosuresKeepTheMainActor() async throws {
            let compiler = try AppTargetCompiler()
            defer { compiler.removeFolder() }
            func viewDidLoad(writing closure: String) -> String {
                """
                final class Store { var greeting = "Hello" }
                let store = Store()
                func viewDidLoad() {
                    let work: \(closure) = { store.greeting }
                    _ = work
                }

                """
            }
            // Main-actor isolated: it reads the app's store without await, as only main-actor code may.
            let plain = try compiler.write(viewDidLoad(writing: "() async -> String"))
            #expect(try await compiler.typecheck(files: [plain]) == "")
            let sendable = try compiler.write(viewDidLoad(writing: "@Sendable () async -> String"))
            let said = try await compiler.typecheck(files: [sendable])
            #expect(
                said.contains("main actor-isolated property 'greeting' cannot be accessed from outside of the actor"),
                "\(said)")
        }
    }

    /// Runs swiftc with an Xcode 26 app target's settings on files of the package and snippets.
    struct AppTargetCompiler {
        /// The compiler and the arguments that come before swiftc's own; nil if there is none.
        static let command: (executable: URL, arguments: [String])? = {
            #if os(macOS)
                // xcrun finds the compiler of the selected Xcode (read, not verified: no Mac here).
                return FileManager.default.isExecutableFile(atPath: "/usr/bin/xcrun")
                    ? (URL(fileURLWithPath: "/usr/bin/xcrun"), ["swiftc"]) : nil
            #else
                let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
                for folder in path.split(separator: ":") {
                    let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("swiftc")
                    if FileManager.default.isExecutableFile(atPath: candidate.path) { return (candidate, []) }
                }
                return nil
            #endif
        }()

        /// Xcode 26's new-app settings.
        static let appSettings = [
            "-swift-version", "6", "-default-isolation", "MainActor",
            "-enable-upcoming-feature", "NonisolatedNonsendingByDefault",
            "-enable-upcoming-feature", "InferIsolatedConformances",
        ]

        let folder: URL

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("app-target-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }

        func removeFolder() { try? FileManager.default.removeItem(at: folder) }

        /// The text of a file of the package.
        func source(_ path: String) throws -> String {
            try String(contentsOf: Transcript.packageRoot.appendingPathComponent(path), encoding: .utf8)
        }

        /// Writes `text` to a new file of the folder; its path.
        func write(_ text: String) throws -> String {
            let file = folder.appendingPathComponent("snippet-\(UUID().uuidString).swift")
            try text.write(to: file, atomically: true, encoding: .utf8)
            return file.path
        }

        /// Type-checks the files (package paths, or absolute ones) as one module: "" if it
        /// compiles, else what the compiler said.
        func typecheck(files: [String]) async throws -> String {
            guard let command = Self.command else { throw TranscriptError("no compiler") }
            let paths = files.map { $0.hasPrefix("/") ? $0 : Transcript.packageRoot.appendingPathComponent($0).path }
            let outputFile = folder.appendingPathComponent("swiftc-\(UUID().uuidString).out")
            guard FileManager.default.createFile(atPath: outputFile.path, contents: nil) else {
                throw TranscriptError("cannot create \(outputFile.path)")
            }
            let output = try FileHandle(forWritingTo: outputFile)
            defer { try? output.close() }
            let process = Process()
            process.executableURL = command.executable
            // -parse-as-library off: a snippet's top-level code is the module's main file.
            process.arguments = command.arguments + ["-typecheck"] + Self.appSettings + paths
            process.standardOutput = output
            process.standardError = output
            let exited = Flag()
            process.terminationHandler = { _ in exited.raise() }
            try process.run()
            guard await exited.wait(seconds: 120) else {
                process.terminate()
                throw TranscriptError("swiftc did not finish within 120 s")
            }
            let text = try String(contentsOf: outputFile, encoding: .utf8)
            return process.terminationStatus == 0 ? "" : text
        }
    }
#endif
