import CompletionOperations
import Foundation
import TestSupport
import Testing

#if os(macOS) || os(Linux)
    /// Whether Swift 6 forces the article's completion to be `@Sendable`: the compiler decides, on
    /// the article's call site with the package's own `VoidClosure` and `Closure` declarations
    /// (`EverythingToKnowPost`'s).
    @Suite(
        "Chapter 4 — the article's plain completion type under Swift 6",
        .enabled(if: SwiftCompiler.command != nil, "no swiftc on PATH (or xcrun on a Mac) to compile the examples with")
    )
    struct Chapter4ClosureTypeTests {
        /// The package's two typealiases, read from its source, and a stand-in for the
        /// article's operation with the article's initializer.
        static func declarations() throws -> String {
            let file = Transcript.packageRoot.appendingPathComponent(
                "Chapters/04-CompletionOperations/CompletionOperations/EverythingToKnowPost.swift")
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
            let aliases = lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                $0.hasPrefix("public typealias VoidClosure") || $0.hasPrefix("public typealias Closure<T>")
            }
            #expect(aliases.count == 2, "the two typealiases in \(file.path)")
            return """
                import Foundation
                \(aliases.joined(separator: "\n"))
                final class CompletionOperation: Operation, @unchecked Sendable {
                    init(completeBlock: Closure<VoidClosure?>?) { self.completeBlock = completeBlock }
                    let completeBlock: Closure<VoidClosure?>?
                }

                """
        }

        /// The article's first call, as written, with the queue its completion is called on.
        static func callSite(on queue: String) -> String {
            """
            let operationQueue = OperationQueue()
            operationQueue.addOperation(
                CompletionOperation { completion in
                    \(queue).asyncAfter(deadline: .now() + 1) {
                        print("First async operation complete")
                        completion?()
                    }
                    print("First sync operation complete")
                }
            )

            """
        }

        @Test(
            "the article's plain () -> Void compiles at its call site, on DispatchQueue.main; from another queue it is refused"
        )
        func plainCompletionAtTheArticlesCallSite() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("closure-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let compiler = SwiftCompiler(folder: folder)
            defer { compiler.removeFolder() }
            let declarations = try Self.declarations()

            // As the article writes it: in top-level code (a file of its own is the program's
            // main file), and in a nonisolated function too.
            let topLevel = try await compiler.typecheck(declarations + Self.callSite(on: "DispatchQueue.main"))
            #expect(topLevel == "", "compiler said: \(topLevel)")
            let inFunction = try await compiler.typecheck(
                declarations + "func callSite() {\n" + Self.callSite(on: "DispatchQueue.main") + "}\n")
            #expect(inFunction == "", "compiler said: \(inFunction)")

            // The same completion called from a global queue: not Sendable, so refused.
            let elsewhere = try await compiler.typecheck(declarations + Self.callSite(on: "DispatchQueue.global()"))
            #expect(elsewhere.contains("non-Sendable type 'VoidClosure?'"), "compiler said: \(elsewhere)")
        }
    }
#endif
