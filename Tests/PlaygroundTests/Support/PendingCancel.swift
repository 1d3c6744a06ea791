#if os(macOS) || os(Linux)
    import Dispatch
    import Foundation
    import Testing
    import TestSupport

    /// Exit-test scenes for chapters 3 and 4: an operation cancelled while it still waits in
    /// its queue. They run in a child process, because the popular versions make Foundation
    /// print a warning (and can crash the queue later).
    enum PendingCancel {
        /// What Foundation says when an operation reports finished before its queue started it.
        /// On Linux it goes to standard output; on Darwin Foundation logs it through its own
        /// logging, which the tests do not read: there they assert the effect only.
        static let warning = "went isFinished=YES without being started by the queue it is in"

        /// What the child process printed, standard output and standard error together.
        static func printedOutput(_ result: ExitTest.Result) -> String {
            String(decoding: result.standardOutputContent + result.standardErrorContent, as: UTF8.self)
        }

        /// Adds `operation` to a suspended queue and cancels it there. Exits at once, whatever
        /// the popular versions do next to the queue: with 0 if the operation now reports
        /// finished although its queue never started it (the mistake), 1 if it does not.
        static func cancelWhilePendingThenExit(_ operation: Operation) -> Never {
            let queue = OperationQueue()
            queue.isSuspended = true
            queue.addOperation(operation)
            operation.cancel()
            exit(operation.isFinished ? 0 : 1)
        }

        /// The same, then resumes the queue. Exits with 0 if the operation was not finished
        /// while pending, and the queue then drains within 5 s with the operation finished;
        /// with 1 if not. Synchronous: it blocks, which only a child process's main thread may.
        static func cancelWhilePendingThenDrain(_ operation: Operation) -> Never {
            let queue = OperationQueue()
            queue.isSuspended = true
            queue.addOperation(operation)
            operation.cancel()
            let finishedWhilePending = operation.isFinished
            let drained = DispatchSemaphore(value: 0)
            queue.addBarrierBlock { drained.signal() }
            queue.isSuspended = false
            let didDrain = drained.wait(timeout: .now() + 5) == .success
            exit(!finishedWhilePending && didDrain && operation.isFinished ? 0 : 1)
        }
    }
#endif
