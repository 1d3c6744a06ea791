import AsyncOperations
import Foundation
import StructuredConcurrency
import TestSupport
import Testing

// FIFOQueue's counterparts of an operation's cancel() and a queue's cancelAllOperations(): a
// cancelled job still runs, in its turn, and sees Task.isCancelled — as a cancelled task does.
@Suite("Chapter 10 — FIFOQueue: cancelling one job, or all of them")
struct FIFOQueueCancelTests {
    /// An hour, unless the task is cancelled; true if it was.
    @Sendable static func sleepUntilCancelled() async -> Bool {
        do {
            try await Task.sleep(nanoseconds: 3_600 * 1_000_000_000)
            return false
        } catch {
            return Task.isCancelled
        }
    }

    @Test("value(of:): cancelling the caller cancels its running job")
    func cancellingTheCallerCancelsItsJob() async {
        let queue = FIFOQueue()
        let started = Flag()
        let caller = Task {
            await queue.value {
                started.raise()
                return await Self.sleepUntilCancelled()
            }
        }
        #expect(await started.wait(seconds: 30))
        caller.cancel()
        let sawCancel = Locked<Bool?>(nil)
        let ended = await completes(within: 30) {
            let value = await caller.value
            sawCancel.withLock { $0 = value }
        }
        #expect(ended, "the job ran on, its caller cancelled")
        #expect(sawCancel.withLock { $0 } == true, "the job never saw Task.isCancelled")
    }

    @Test("value(of:): a job whose caller was cancelled while it waited in line starts cancelled, in its turn")
    func cancelledInLineStartsCancelled() async {
        let queue = FIFOQueue()
        let log = EventLog()
        let firstMayEnd = Flag()
        queue.enqueue {
            _ = await firstMayEnd.wait(seconds: 30)
            log.record("first ended")
        }
        let caller = Task { await queue.value { Task.isCancelled } }
        caller.cancel()
        firstMayEnd.raise()
        let sawCancel = Locked<Bool?>(nil)
        #expect(
            await completes(within: 30) {
                let value = await caller.value
                sawCancel.withLock { $0 = value }
            })
        #expect(sawCancel.withLock { $0 } == true, "the job did not see its caller's cancel at its first line")
        #expect(log.events == ["first ended"], "it ran in its turn, after the first")
    }

    @Test("cancelAll() cancels the running job and every job in line; a job enqueued after it is not cancelled")
    func cancelAllCancelsRunningAndWaiting() async {
        let queue = FIFOQueue()
        let log = EventLog()
        let firstStarted = Flag()
        queue.enqueue {
            firstStarted.raise()
            log.record("first: cancelled \(await Self.sleepUntilCancelled())")
        }
        queue.enqueue { log.record("second: cancelled \(Task.isCancelled)") }
        #expect(await firstStarted.wait(seconds: 30))
        queue.cancelAll()
        let laterCancelled = Locked<Bool?>(nil)
        let ended = await completes(within: 30) {
            let cancelled = await queue.value { Task.isCancelled }
            laterCancelled.withLock { $0 = cancelled }
        }
        #expect(ended, "the running job was not cancelled")
        #expect(log.events == ["first: cancelled true", "second: cancelled true"])
        #expect(laterCancelled.withLock { $0 } == false, "a job enqueued after cancelAll() was cancelled")
    }
}
