#if os(macOS) || os(Linux)
    import Dispatch
    import Foundation
    import Testing
    import TestSupport

    /// Exit-test scenes for chapters 3 and 4: an operation cancelled while it still waits in
    /// its queue, and what its queue does when it looks for work again. They run in a child
    /// process, because the popular versions make Foundation print a warning, then crash.
    enum PendingCancel {
        /// What Foundation says when an operation reports finished before its queue started it.
        /// On Linux it goes to standard output; on Darwin Foundation logs it through its own
        /// logging, which the tests do not read: there they assert the effect only.
        static let warning = "went isFinished=YES without being started by the queue it is in"

        /// What the child prints once the cancel is done, before the queue looks for work again.
        static let finishedWhilePending = "cancelled while pending, it already says isFinished"
        static let notFinishedWhilePending = "cancelled while pending, it is not finished yet"

        /// What the child process printed, standard output and standard error together.
        static func printedOutput(_ result: ExitTest.Result) -> String {
            String(decoding: result.standardOutputContent + result.standardErrorContent, as: UTF8.self)
        }

        /// Adds the operation that `make` returns to a suspended queue, keeps no reference to
        /// it (as a program that adds an operation and moves on), and cancels it there with
        /// `cancelAllOperations()`. It prints whether the operation now says it is finished,
        /// then resumes the queue, which looks for work again, and waits for the queue to drain.
        /// Exits with 0 if it drained within 5 s, with 1 if not.
        ///
        /// Linux: an operation that said "finished" while pending was also released by the
        /// queue, but the queue's list of operations to start still points at it: resuming makes
        /// `OperationQueue._schedule()` follow that pointer into freed memory, a segfault.
        /// Darwin: what its queue does next is not documented, so the child exits with 0 as soon
        /// as it has printed that the operation said "finished" (not run on a Mac).
        /// Synchronous: it blocks, which only a child process's main thread may.
        static func cancelWhilePendingThenResume(_ make: () -> Operation) -> Never {
            let queue = OperationQueue()
            queue.isSuspended = true
            let saidFinished = {
                let operation = make()
                queue.addOperation(operation)
                queue.cancelAllOperations()
                return operation.isFinished
            }()  // from here on, only the queue may hold the operation
            print(saidFinished ? finishedWhilePending : notFinishedWhilePending)
            fflush(nil)  // a crash would lose what is still buffered
            #if !os(Linux)
                if saidFinished { exit(0) }
            #endif
            let drained = DispatchSemaphore(value: 0)
            queue.addBarrierBlock { drained.signal() }
            queue.isSuspended = false  // the queue looks for work again
            exit(drained.wait(timeout: .now() + 30) == .success ? 0 : 1)
        }

        /// How the popular versions' child ends. Linux: a segfault in the queue's scheduler
        /// (verified here) — or, under AddressSanitizer, its report of that segfault and exit
        /// status 1. Darwin: exit status 0, once the operation said "finished" while pending.
        static var popularEnding: ExitTest.Condition {
            #if os(Linux)
                Sanitizer.address ? .failure : .signal(SIGSEGV)
            #else
                .success
            #endif
        }

        /// Checks what a popular version's child printed: that the operation said "finished"
        /// while it waited, and on Linux Foundation's warning, and under AddressSanitizer that its
        /// report puts the fault in the queue's scheduler.
        static func checkPopularChild(_ result: ExitTest.Result?) {
            guard let result else { return }
            let output = printedOutput(result)
            #expect(output.contains(finishedWhilePending), "output was: \(output.suffix(800))")
            #if os(Linux)
                #expect(output.contains(warning), "output was: \(output.suffix(800))")
                if Sanitizer.address {
                    #expect(output.contains("OperationQueue") && output.contains("_schedule"), "\(output.suffix(800))")
                }
            #endif
        }

        /// Checks what a fixed version's child printed: not finished while pending, and (on
        /// Linux, where Foundation prints it) no warning.
        static func checkFixedChild(_ result: ExitTest.Result?) {
            guard let result else { return }
            let output = printedOutput(result)
            #expect(output.contains(notFinishedWhilePending), "output was: \(output.suffix(800))")
            #if os(Linux)
                #expect(!output.contains(warning), "output was: \(output.suffix(800))")
            #endif
        }

        /// ThreadSanitizer's allocator does not hand freed memory out again soon: the dangling
        /// pointer still leads to the old operation, and the queue survives (measured here).
        static let whyNotUnderThreadSanitizer: Comment =
            "ThreadSanitizer's allocator hides the use after free: the queue survives there"
    }
#endif
