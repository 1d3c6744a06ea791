import AsyncOperations
import Cancellation
import Foundation
import TestSupport
import Testing

#if os(macOS) || os(Linux)
    @Suite("Chapter 3 — finishing a pending operation from cancel()")
    struct FinishOnCancelTests {
        @Test("Foundation warns when cancel() finishes an operation that waits in its queue", .exitTest)
        func popularCancelIsWarnedAbout() async throws {
            let result = await #expect(
                processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]
            ) {
                // FinishOnCancelOperation finishes itself in cancel(), though it is still pending.
                PendingCancel.cancelWhilePendingThenExit(FinishOnCancelOperation { _ in })
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

        @Test("AsyncOperation in the same situation: no warning, and the queue drains", .exitTest)
        func safeCancelIsQuiet() async throws {
            let result = await #expect(
                processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]
            ) {
                final class Quick: AsyncOperation, @unchecked Sendable {
                    // @unchecked Sendable: no state of its own.
                    override func main() { finish() }
                }
                PendingCancel.cancelWhilePendingThenDrain(Quick())
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
