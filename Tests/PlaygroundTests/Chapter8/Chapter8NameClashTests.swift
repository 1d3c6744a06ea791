import Foundation
import TestSupport
import Testing

// The article names its protocol `Operation`, and says that it "conflicts with
// Foundation.Operation". What that means is a compile error, so these tests run the compiler:
// they compile the article's module (Chapters/08-Coordinators/CoordinatingPost) as it is in
// the package, then small clients of it.
#if os(macOS) || os(Linux)
    @Suite(
        "Chapter 8 — the article's protocol named Operation, against Foundation's",
        .enabled(if: Compiler.command != nil, "no swiftc on PATH (or xcrun on a Mac) to compile the examples with")
    )
    struct Chapter8NameClashTests {
        @Test("a file that imports Foundation and the article's module cannot write Operation")
        func ambiguousBesideFoundation() async throws {
            let compiler = try await Compiler.withArticleModule()
            defer { compiler.removeFolder() }
            let clash = try await compiler.typecheck(
                """
                import Foundation
                import CoordinatingPost
                class MyOperation: Operation {
                    func perform(completion: @escaping (Error?) -> Void) { completion(nil) }
                }
                """)
            #expect(clash.contains("'Operation' is ambiguous for type lookup"), "compiler said: \(clash)")

            // The article's two ways out compile: only its module imported, or its name written out.
            #expect(
                try await compiler.typecheck(
                    """
                    import CoordinatingPost
                    class MyOperation: Operation {
                        func perform(completion: @escaping (Error?) -> Void) { completion(nil) }
                    }
                    """) == "")
            #expect(
                try await compiler.typecheck(
                    """
                    import Foundation
                    import CoordinatingPost
                    class MyOperation: CoordinatingPost.Operation {
                        func perform(completion: @escaping (Error?) -> Void) { completion(nil) }
                    }
                    """) == "")
        }

        @Test("inside the article's module, its protocol hides Foundation's class")
        func shadowsFoundationInItsModule() async throws {
            let compiler = try await Compiler.withArticleModule()
            defer { compiler.removeFolder() }
            let shadowed = try await compiler.typecheckInArticleModule(
                """
                import Foundation
                final class Upload: Operation {
                    override func main() {}
                }
                """)
            #expect(
                shadowed.contains("method does not override any method from its superclass"),
                "compiler said: \(shadowed)")
        }
    }

    extension Chapter8NameClashTests {
        @Test("Swift 6 refuses to call the article's completion from a dispatch queue")
        func completionIsNotSendable() async throws {
            let compiler = try await Compiler.withArticleModule()
            defer { compiler.removeFolder() }
            let refused = try await compiler.typecheck(
                """
                import Dispatch
                import CoordinatingPost
                final class Later: Operation {
                    func perform(completion: @escaping OperationCompletion) {
                        DispatchQueue.global().async { completion(nil) }
                    }
                }
                """)
            #expect(refused.contains("capture of 'completion' with non-Sendable type"), "compiler said: \(refused)")
        }
    }

    /// Runs the Swift compiler on small files, next to a build of the article's module.
    struct Compiler {
        /// The compiler and the arguments that come before swiftc's own; nil if there is none.
        static let command: (executable: URL, arguments: [String])? = {
            #if os(macOS)
                // xcrun finds the compiler and the SDK of the selected Xcode (read, not verified:
                // not yet run on a Mac).
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

        static let articleSources: [String] = {
            let folder = Transcript.packageRoot.appendingPathComponent("Chapters/08-Coordinators/CoordinatingPost")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.filter { $0.hasSuffix(".swift") }.sorted().map { folder.appendingPathComponent($0).path }
        }()

        let folder: URL

        /// A fresh folder with the article's module built into it.
        static func withArticleModule() async throws -> Compiler {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clash-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let compiler = Compiler(folder: folder)
            let output = try await compiler.swiftc(
                [
                    "-emit-module", "-module-name", "CoordinatingPost", "-emit-module-path",
                    folder.appendingPathComponent("CoordinatingPost.swiftmodule").path,
                ] + articleSources)
            guard output.status == 0 else {
                throw TranscriptError("the article's module does not compile:\n\(output.text)")
            }
            return compiler
        }

        func removeFolder() { try? FileManager.default.removeItem(at: folder) }

        /// Type-checks `source` as a client of the article's module: "" if it compiles, else
        /// what the compiler said.
        func typecheck(_ source: String) async throws -> String {
            let file = try write(source)
            let output = try await swiftc(["-typecheck", "-I", folder.path, file])
            return output.status == 0 ? "" : output.text
        }

        /// Type-checks `source` as one more file of the article's module.
        func typecheckInArticleModule(_ source: String) async throws -> String {
            let file = try write(source)
            let output = try await swiftc(
                ["-typecheck", "-module-name", "CoordinatingPost"] + Self.articleSources + [file])
            return output.status == 0 ? "" : output.text
        }

        private func write(_ source: String) throws -> String {
            let file = folder.appendingPathComponent("client-\(UUID().uuidString).swift")
            try source.write(to: file, atomically: true, encoding: .utf8)
            return file.path
        }

        /// Runs swiftc in Swift 6 language mode, bounded; its status and everything it printed.
        private func swiftc(_ arguments: [String]) async throws -> (status: Int32, text: String) {
            guard let command = Self.command else { throw TranscriptError("no compiler") }
            let outputFile = folder.appendingPathComponent("swiftc-\(UUID().uuidString).out")
            guard FileManager.default.createFile(atPath: outputFile.path, contents: nil) else {
                throw TranscriptError("cannot create \(outputFile.path)")
            }
            let output = try FileHandle(forWritingTo: outputFile)
            defer { try? output.close() }
            let process = Process()
            process.executableURL = command.executable
            process.arguments = command.arguments + ["-swift-version", "6"] + arguments
            process.standardOutput = output
            process.standardError = output
            let exited = Flag()
            process.terminationHandler = { _ in exited.raise() }
            try process.run()
            guard await exited.wait(seconds: 120) else {
                process.terminate()
                throw TranscriptError("swiftc did not finish within 120 s")
            }
            return (process.terminationStatus, try String(contentsOf: outputFile, encoding: .utf8))
        }
    }
#endif
