import Foundation
import TestSupport
import Testing

// The article names its protocol `Operation`, and says that it "conflicts with
// Foundation.Operation". What that means is a compile error, so these tests run the compiler
// (SwiftCompiler) on small clients of the article's module (Chapters/08-Coordinators/CoordinatingPost)
// as the build made it, and on a file added to the module's own sources.
#if os(macOS) || os(Linux)
    @Suite(
        "Chapter 8 — the article's protocol named Operation, against Foundation's",
        .enabled(if: SwiftCompiler.command != nil, "no swiftc on PATH (or xcrun on a Mac) to compile the examples with")
    )
    struct Chapter8NameClashTests {
        @Test("a file that imports Foundation and the article's module cannot write Operation")
        func ambiguousBesideFoundation() async throws {
            let compiler = try await SwiftCompiler.building(["CoordinatingPost"])
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

        /// In the slow group: it compiles the article's module from its sources.
        @Test("inside the article's module, its protocol hides Foundation's class", .slow)
        func shadowsFoundationInItsModule() async throws {
            let compiler = try await SwiftCompiler.building(["CoordinatingPost"])
            defer { compiler.removeFolder() }
            let shadowed = try await compiler.typecheck(
                """
                import Foundation
                final class Upload: Operation {
                    override func main() {}
                }
                """, asPartOf: "CoordinatingPost")
            #expect(
                shadowed.contains("method does not override any method from its superclass"),
                "compiler said: \(shadowed)")
        }
    }

    extension Chapter8NameClashTests {
        @Test("Swift 6 refuses to call the article's completion from a dispatch queue")
        func completionIsNotSendable() async throws {
            let compiler = try await SwiftCompiler.building(["CoordinatingPost"])
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
#endif
