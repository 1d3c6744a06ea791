import AsyncOperations
import CompletionOperations
import Foundation
import TestSupport
import Testing

#if os(macOS) || os(Linux)
    @Suite("Chapter 4 — bug 2: the popular cancel() finishes a pending operation")
    struct EverythingToKnowPostCancelTests {
        @Test("Foundation warns: went isFinished=YES without being started", .exitTest)
        func popularCancelIsWarnedAbout() async {
            let result = await #expect(
                processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]
            ) {
                // The popular cancel() sets .finished while the operation still waits.
                PendingCancel.cancelWhilePendingThenExit(
                    EverythingToKnowPost.CompletionOperationWithoutMainQueue { completion in completion?() })
            }
            // Exit status 0: it reported finished while its queue had not started it.
            #if os(Linux)
                // Linux's Foundation prints its warning to standard output.
                let output = result.map(PendingCancel.printedOutput) ?? ""
                #expect(output.contains(PendingCancel.warning), "output was: \(output)")
            #else
                // Darwin's Foundation logs it through its own logging: the effect is what counts.
                _ = result
            #endif
        }

        @Test("the fix: CompletionOperation in the same situation is quiet, and the queue drains", .exitTest)
        func fixedCancelIsQuiet() async {
            let result = await #expect(
                processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]
            ) {
                PendingCancel.cancelWhilePendingThenDrain(CompletionOperation { complete in complete() })
            }
            // Exit status 0: not finished while pending, and the queue drained.
            #if os(Linux)
                let output = result.map(PendingCancel.printedOutput) ?? ""
                #expect(!output.contains(PendingCancel.warning), "output was: \(output)")
            #else
                _ = result  // Darwin logs the warning elsewhere; the exit status is the check.
            #endif
        }
    }
#endif
