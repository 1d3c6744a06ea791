#if os(macOS) || os(Linux)
    import Dispatch
    import Foundation
    import Testing
    import TestSupport

    /// Exit-test scenes for chapters 3 and 4: an operation cancelled while it still waits in
    /// its queue. They run in a child process, because the popular versions make Foundation
    /// print a warning (and can crash the queue later).
    enum PendingCancel {
        static let warning = "went isFinished=YES without being started by the queue it is in"

        /// What the child process printed, standard output and standard error together.
        static func printedOutput(_ result: ExitTest.Result) -> String {
            String(decoding: result.standardOutputContent + result.standardErrorContent, as: UTF8.self)
        }

        /// Adds `operation` to a suspended queue, cancels it there, and exits with 0 at once:
        /// whatever the popular versions do next to the queue is not part of the scene.
        static func cancelWhilePendingThenExit(_ operation: Operation) -> Never {
            let queue = OperationQueue()
            queue.isSuspended = true
            queue.addOperation(operation)
            operation.cancel()
            exit(0)
        }

        /// The same, then resumes the queue: exits with 0 if it drains within 5 s and the
        /// operation is finished, 1 if not.
        static func cancelWhilePendingThenDrain(_ operation: Operation) -> Never {
            let queue = OperationQueue()
            queue.isSuspended = true
            queue.addOperation(operation)
            operation.cancel()
            let drained = DispatchSemaphore(value: 0)
            queue.addBarrierBlock { drained.signal() }
            queue.isSuspended = false
            exit(drained.wait(timeout: .now() + 5) == .success && operation.isFinished ? 0 : 1)
        }
    }
#endif
