import AsyncOperations
import Cancellation
import Foundation
import TestSupport
import Testing

#if os(macOS) || os(Linux)
    @Suite("Chapter 3 — finishing a pending operation from cancel()")
    struct FinishOnCancelTests {
        @Test(
            """
            cancel() finishes an operation that waits in its queue: Foundation warns, and once the queue looks \
            for work again it crashes (Linux)
            """,
            .disabled(if: Sanitizer.thread, PendingCancel.whyNotUnderThreadSanitizer), .exitTest)
        func popularCancelCrashesTheQueue() async {
            // Linux: the warning, then a segfault in OperationQueue._schedule() when the resumed
            // queue walks its list. Darwin: only that the operation said "finished" while its
            // queue had not started it; what the queue does next is not documented.
            let result = await #expect(
                processExitsWith: PendingCancel.popularEnding,
                observing: [\.standardOutputContent, \.standardErrorContent]
            ) {
                PendingCancel.cancelWhilePendingThenResume { FinishOnCancelOperation { _ in } }
            }
            PendingCancel.checkPopularChild(result)
        }

        @Test(
            "AsyncOperation in the same situation: not finished while pending, no warning, and the queue drains",
            .exitTest)
        func safeCancelIsQuiet() async {
            let result = await #expect(
                processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]
            ) {
                final class Quick: AsyncOperation, @unchecked Sendable {
                    // @unchecked Sendable: no state of its own.
                    override func main() { finish() }
                }
                PendingCancel.cancelWhilePendingThenResume { Quick() }
            }
            PendingCancel.checkFixedChild(result)
        }
    }
#endif
