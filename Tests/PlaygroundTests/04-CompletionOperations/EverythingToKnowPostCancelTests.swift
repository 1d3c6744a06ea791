import AsyncOperations
import CompletionOperations
import Foundation
import TestSupport
import Testing

#if os(macOS) || os(Linux)
    @Suite("Chapter 4 — bug 2: the popular cancel() finishes a pending operation")
    struct EverythingToKnowPostCancelTests {
        @Test(
            """
            the popular cancel() on a pending operation: Foundation warns, and once the queue looks for work \
            again it crashes (Linux)
            """,
            .disabled(if: Sanitizer.thread, PendingCancel.whyNotUnderThreadSanitizer), .exitTest)
        func popularCancelCrashesTheQueue() async {
            // The popular cancel() sets .finished while the operation still waits. Linux: the
            // warning, then a segfault in OperationQueue._schedule(). Darwin: the effect only.
            let result = await #expect(
                processExitsWith: PendingCancel.popularEnding,
                observing: [\.standardOutputContent, \.standardErrorContent]
            ) {
                PendingCancel.cancelWhilePendingThenResume {
                    EverythingToKnowPost.CompletionOperationWithoutMainQueue { completion in completion?() }
                }
            }
            PendingCancel.checkPopularChild(result)
        }

        @Test("the fix: CompletionOperation in the same situation is quiet, and the queue drains", .exitTest)
        func fixedCancelIsQuiet() async {
            let result = await #expect(
                processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]
            ) {
                PendingCancel.cancelWhilePendingThenResume { CompletionOperation { complete in complete() } }
            }
            PendingCancel.checkFixedChild(result)
        }
    }
#endif
