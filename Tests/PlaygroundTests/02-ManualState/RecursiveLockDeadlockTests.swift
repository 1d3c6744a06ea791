import AsyncOperations
import Foundation
import ManualState
import TestSupport
import Testing

#if os(macOS) || os(Linux)
    // Linux only: the deadlock needs swift-corelibs-foundation's order of locks
    // (`waitUntilFinished()` reads `isFinished` holding its wait condition, and the "isFinished"
    // announcement takes that condition). When Darwin's wait machinery takes its locks is not
    // documented, so on Darwin nothing is asserted (not run on a Mac).
    #if os(Linux)
        @Suite("Chapter 2 — a recursive lock does not prevent the deadlock with a waiting thread (Linux)")
        struct RecursiveLockDeadlockTests {
            @Test(
                "announcing under a recursive lock deadlocks against waitUntilFinished() on another thread (bounded, in a child)",
                .exitTest)
            func inversionDeadlocks() async {
                let result = await #expect(processExitsWith: .failure, observing: [\.standardOutputContent]) {
                    if !Self.waitReturns(announcingUnderLock: true, within: 2) {
                        print("deadlocked: the wait never returned")
                        exit(3)
                    }
                    exit(0)
                }
                // Under ThreadSanitizer the child reports the inversion and exits with its own status.
                let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
                #expect(printed.contains("deadlocked"))
            }

            @Test("the same operation announcing after unlocking: the wait returns", .exitTest)
            func outsideTheLockIsFine() async {
                await #expect(processExitsWith: .success) {
                    exit(Self.waitReturns(announcingUnderLock: false, within: 30) ? 0 : 3)
                }
            }

            /// Makes the two locks' opposite orders meet, every time: the finishing thread takes the
            /// operation's lock and holds it; only then does a thread call `waitUntilFinished()`,
            /// which takes Foundation's wait condition and reads `isFinished`; once that read has
            /// begun, the finishing thread goes on to announce. Under the lock, the announcement
            /// needs the wait condition the waiter holds, and the waiter needs the lock: true only if
            /// the wait returned within `seconds`. Synchronous: it blocks, which only a child
            /// process's own threads may.
            static func waitReturns(announcingUnderLock: Bool, within seconds: Double) -> Bool {
                let finisherHoldsTheLock = DispatchSemaphore(value: 0)
                let waiterIsReading = DispatchSemaphore(value: 0)
                let operation = RecursiveLockOperation(
                    announcesUnderLock: announcingUnderLock,
                    whileHoldingTheLock: {
                        finisherHoldsTheLock.signal()
                        _ = waiterIsReading.wait(timeout: .now() + 30)
                    },
                    beforeReadingFinished: {
                        if Thread.current.threadDictionary["role"] as? String == "waiter" { waiterIsReading.signal() }
                    }
                )
                OperationQueue().addOperation(operation)
                guard finisherHoldsTheLock.wait(timeout: .now() + 30) == .success else { return false }
                let waitReturned = DispatchSemaphore(value: 0)
                let waiter = Thread {
                    Thread.current.threadDictionary["role"] = "waiter"
                    operation.waitUntilFinished()
                    waitReturned.signal()
                }
                waiter.start()
                return waitReturned.wait(timeout: .now() + seconds) == .success
            }
        }
    #endif
#endif
