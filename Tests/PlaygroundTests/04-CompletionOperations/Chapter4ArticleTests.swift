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
