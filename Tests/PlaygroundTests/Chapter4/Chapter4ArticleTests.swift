import CompletionOperations
import Foundation
import TestSupport
import Testing

/// The article's own call site — two completion operations on a queue with
/// `maxConcurrentOperationCount = 1`, each printing a synchronous line and then an asynchronous
/// one — run against the article's own operation.
@Suite("Chapter 4 — the article's example, on the article's operation")
struct Chapter4ArticleTests {
    #if os(macOS) || os(Linux)
        /// The article's call site as written, on the article's own `CompletionOperation` with
        /// both `DispatchQueue.main` hops (`EverythingToKnowPost.CompletionOperation`): the executable
        /// `chapter4-article`, whose main thread serves the main queue with `dispatchMain()`.
        @Test("the article's call site on the article's CompletionOperation, main queue served: its four lines")
        func articleCallSite() async throws {
            // Its delays (the article's 1 s and 1.5 s) scaled by CHAPTER_PACING to 0.1 s and
            // 0.15 s: each callback still comes long after start() has returned, the path the
            // article's example takes (with no delay at all, bug 1's race gets its rare chance).
            // The order itself is caused: the serial queue starts the second operation only
            // once the first one's completion has set `.finished`.
            // Under ThreadSanitizer the child reports the article's unlocked state (bug 3, the
            // race demos' subject); exitcode=0 keeps its own exit status the verdict.
            let sanitizerOptions = ProcessInfo.processInfo.environment["TSAN_OPTIONS"].map { $0 + ":" } ?? ""
            let child = try ChildProcess(
                "chapter4-article",
                environment: ["CHAPTER_PACING": "0.1", "TSAN_OPTIONS": sanitizerOptions + "exitcode=0"])
            let exited = await child.exits(within: 30)
            child.terminate()
            #expect(exited, "chapter4-article did not exit within 30 s; it printed \(child.printedLines)")
            #expect(child.status == 0, "chapter4-article exited with \(child.status ?? -1): \(child.errorOutput)")
            #expect(
                child.printedLines == [
                    "First sync operation complete", "First async operation complete",
                    "Second sync operation complete", "Second async operation complete",
                ])
        }
    #endif
}

#if os(macOS) || os(Linux)
    /// Whether Swift 6 forces the article's completion to be `@Sendable`: the compiler decides, on
    /// the article's call site with the package's own `VoidClosure` and `Closure` declarations
    /// (`EverythingToKnowPost`'s).
    @Suite(
        "Chapter 4 — the article's plain completion type under Swift 6",
        .enabled(if: Compiler.command != nil, "no swiftc on PATH (or xcrun on a Mac) to compile the examples with")
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
            let compiler = Compiler(folder: folder)
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
