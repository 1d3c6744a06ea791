import AsyncOperations
import Foundation
import ManualState
import TestSupport
import Testing

#if os(macOS) || os(Linux)
    @Suite("Chapter 2 — posting notifications while holding the lock")
    struct NotifyingUnderLockTests {
        /// The child process exits with this status when `finish()` did not return in time.
        static let deadlocked: Int32 = 3

        @Test(
            "didChangeValue posted while holding the getters' lock deadlocks at the first announcement (bounded, in a child)",
            .exitTest)
        func deadlocks() async {
            // An exit test runs in a child process: the deadlocked thread dies with it.
            let result = await #expect(
                processExitsWith: .exitCode(NotifyingUnderLockTests.deadlocked), observing: [\.standardOutputContent]
            ) {
                let stuckAt = NotifyingUnderLockTests.announcementThatNeverReturns(within: 0.5)
                print("stuck announcing \(stuckAt ?? "nothing")")
                exit(stuckAt == nil ? 0 : NotifyingUnderLockTests.deadlocked)
            }
            let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
            #if os(Linux)
                // didChangeValue(forKey: "isExecuting") reads isExecuting at once (corelibs'
                // Operation.swift), so the thread never reaches the "isFinished" announcement.
                #expect(printed.contains("stuck announcing isExecuting"), "\(printed)")
            #else
                // Darwin: the first announcement whose observer reads a getter deadlocks; which
                // key that is depends on who observes it (not documented; not run on a Mac).
                #expect(printed.contains("stuck announcing"))
            #endif
        }

        /// Runs the operation and blocks until its `finish()` returns, at most `seconds`; nil if
        /// it returned, else the key of the last announcement it began. Synchronous on purpose:
        /// a blocking wait has no place in async code (Apple's SDK makes it an error there), and
        /// in the child process nothing else needs this thread.
        static func announcementThatNeverReturns(within seconds: Double) -> String? {
            let returned = DispatchSemaphore(value: 0)
            let lastKey = Locked<String?>(nil)
            let operation = NotifyingUnderLockOperation(
                announcing: { key in lastKey.withLock { $0 = key } }, finishReturned: { returned.signal() })
            OperationQueue().addOperation(operation)
            guard returned.wait(timeout: .now() + seconds) == .timedOut else { return nil }
            return lastKey.withLock { $0 } ?? "none"
        }
    }
#endif
