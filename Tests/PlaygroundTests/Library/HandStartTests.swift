import AsyncOperations
import CompletionOperations
import Foundation
import TestSupport
import Testing

// start() by hand, compared with Foundation's own start() on the same paths. Foundation's traps
// on an operation that is already executing (Apple's `start()`: "If the operation is currently
// executing or is not ready to execute, this method throws an NSInvalidArgumentException"), and,
// read in swift-corelibs-foundation, on one that waits in a queue. AsyncOperation overrides
// start(), so it makes the first check itself; the second it cannot make: nothing Foundation
// lets a subclass read tells it that a queue holds it. These tests show both, and what follows
// the second mistake. Each scene runs in a child process: a trap or a crash fails one test.

#if os(macOS) || os(Linux)
    @Suite("start() by hand: a second start, and a start of an operation that waits in a queue")
    struct HandStartTests {
        @Test("a second start() while the operation runs traps, as Foundation's start() does", .exitTest)
        func secondStartWhileRunningTraps() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                startWatchdog(seconds: 60)
                let operation = CompletionOperation { _ in }  // its work never completes
                operation.start()
                operation.start()
                exit(0)
            }
            let printed = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(printed.contains("was started again while it runs"), "\(printed)")
        }

        @Test(
            "start(); cancel(); start(): the second start() traps before it can finish the operation as never started",
            .exitTest)
        func startCancelStartTraps() async {
            let result = await #expect(
                processExitsWith: .failure, observing: [\.standardOutputContent, \.standardErrorContent]
            ) {
                startWatchdog(seconds: 60)
                let operation = ReportingOperation()
                operation.start()
                operation.cancel()
                operation.start()
                exit(0)
            }
            let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
            #expect(printed == "main()\n", "\(printed)")
        }

        #if os(Linux)
            @Test("a BlockOperation started by hand while it waits in its queue: Foundation's start() traps", .exitTest)
            func blockOperationTrapsInItsQueue() async {
                let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                    startWatchdog(seconds: 60)
                    let queue = OperationQueue()
                    queue.isSuspended = true
                    let operation = BlockOperation {}
                    queue.addOperation(operation)
                    operation.start()
                    exit(0)
                }
                let printed = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
                #expect(printed.contains("trying to start the receiver simultaneously"), "\(printed)")
            }

            /// Linux's queue picks only operations in its own state "enqueued"; the start by hand
            /// announces "isExecuting", which moves that state on, so the queue never starts the
            /// operation, and its finish frees a place in the queue that it never took.
            @Test(
                """
                an AsyncOperation started by hand while it waits behind another in a serial queue: it runs beside \
                that one, and when it ends the queue starts the next one beside it too
                """,
                .exitTest)
            func handStartInASerialQueue() async {
                let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
                    startWatchdog(seconds: 120)
                    HandStartScenes.startByHandBehindARunningOperation()
                }
                let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
                #expect(printed == HandStartScenes.twoAtOnce, "\(printed)")
            }

            /// The operation started by hand ends, and the queue lets go of it, but its list of
            /// operations to start still points at it: when the queue looks for work again, it
            /// follows that pointer into freed memory.
            @Test(
                """
                an AsyncOperation started by hand while it waits in a suspended queue, then let go: the queue \
                crashes when it is resumed
                """,
                .disabled(if: Sanitizer.thread, PendingCancel.whyNotUnderThreadSanitizer), .exitTest)
            func handStartInASuspendedQueue() async {
                let result = await #expect(
                    processExitsWith: Sanitizer.address ? .failure : .signal(SIGSEGV),
                    observing: [\.standardOutputContent, \.standardErrorContent]
                ) {
                    HandStartScenes.startByHandInASuspendedQueueThenResume()
                }
                let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
                #expect(printed.contains("started by hand, it finished"), "\(printed)")
                if Sanitizer.address, let result {
                    let errors = String(decoding: result.standardErrorContent, as: UTF8.self)
                    #expect(errors.contains("OperationQueue") && errors.contains("_schedule"), "\(errors.suffix(800))")
                }
            }
        #else
            // Darwin: Apple documents the trap only for an operation that is executing or not
            // ready; what its start() does for one that waits in a queue, and what its queue does
            // after a subclass's start by hand, is not documented, and was not run (no Mac).
        #endif
    }

    /// Its work never answers by itself; it prints "main()" when it runs, and
    /// "cancelledBeforeStart()" if the base takes it for one cancelled before it started.
    private final class ReportingOperation: AsyncOperation, @unchecked Sendable {
        // @unchecked Sendable: no state of its own.
        override func main() {
            print("main()")
            fflush(nil)
        }

        override func cancelledBeforeStart() {
            print("cancelledBeforeStart()")
            fflush(nil)
        }
    }

    /// The scenes, synchronous: they block the child process's thread, never the cooperative pool's.
    enum HandStartScenes {
        static let twoAtOnce = """
            started by hand, it ran while the first one was executing
            the queue then started the next one while the first one was executing

            """

        /// A serial queue runs a held operation; behind it wait an AsyncOperation and a
        /// BlockOperation. The AsyncOperation is started by hand. Prints what ran while the held
        /// one was executing, releases it, and exits with 0 once the queue has drained.
        static func startByHandBehindARunningOperation() -> Never {
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            // Held until released, however long the machine takes: no time limit of its own.
            let running = DispatchSemaphore(value: 0)
            let mayEnd = DispatchSemaphore(value: 0)
            let first = BlockOperation {
                running.signal()
                mayEnd.wait()
            }
            queue.addOperation(first)
            running.wait()
            let startedByHand = CompletionOperation { complete in
                if first.isExecuting { print("started by hand, it ran while the first one was executing") }
                complete()
            }
            let next = DispatchSemaphore(value: 0)
            queue.addOperation(startedByHand)
            queue.addOperation { next.signal() }
            startedByHand.start()
            // Waits for progress only: the queue starts the next one when the one started by hand ends.
            next.wait()
            if first.isExecuting { print("the queue then started the next one while the first one was executing") }
            fflush(nil)
            mayEnd.signal()
            queue.waitUntilAllOperationsAreFinished()
            exit(0)
        }

        /// Adds an AsyncOperation to a suspended queue, starts it by hand (it finishes at once),
        /// keeps no reference to it, then resumes the queue. Exits with 0 if the queue drained.
        static func startByHandInASuspendedQueueThenResume() -> Never {
            let queue = OperationQueue()
            queue.isSuspended = true
            let finished = {
                let operation = CompletionOperation { $0() }
                queue.addOperation(operation)
                operation.start()
                return operation.isFinished
            }()  // from here on, only the queue may hold the operation
            print(finished ? "started by hand, it finished" : "started by hand, it did not finish")
            fflush(nil)  // a crash would lose what is still buffered
            let drained = DispatchSemaphore(value: 0)
            queue.addBarrierBlock { drained.signal() }
            queue.isSuspended = false  // the queue looks for work again
            exit(drained.wait(timeout: .now() + 30) == .success ? 0 : 1)
        }
    }
#endif
