import AsyncOperations
import Foundation
import StructuredConcurrency
import TestSupport
import Testing

// Chapter 10's pieces where an app takes them: a closed FIFOQueue, a progress body that
// throws, a width of 0, a cancelled wait for a Countdown.
@Suite("Chapter 10 — the pieces' edges: bad input is answered at the call")
struct StructuredEdgeTests {
    #if os(macOS) || os(Linux)
        @Test("FIFOQueue.value(of:) after close() traps, naming the mistake", .exitTest)
        func valueAfterClose() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                startWatchdog(seconds: 30)
                let queue = FIFOQueue()
                queue.close()
                _ = await queue.value { 1 }
                exit(0)
            }
            let printed = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(printed.contains("after close()"), "\(printed)")
        }

        @Test("FIFOQueue.enqueue after close() traps, naming the mistake", .exitTest)
        func enqueueAfterClose() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                startWatchdog(seconds: 30)
                let queue = FIFOQueue()
                queue.close()
                queue.enqueue {}
                exit(0)
            }
            let printed = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(printed.contains("after close()"), "\(printed)")
        }

        @Test("progressOfRunning(width: 0) traps at the call, not later in a background task", .exitTest)
        func zeroWidthTrapsAtTheCall() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardOutputContent]) {
                startWatchdog(seconds: 30)
                _ = progressOfRunning([1, 2], width: 0) { _ in }
                FileHandle.standardOutput.write(Data("returned from the call\n".utf8))  // unbuffered
                try? await Task.sleep(nanoseconds: 500_000_000)  // a later trap would come by now
                exit(0)
            }
            let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
            #expect(!printed.contains("returned from the call"), "the call returned before the trap")
        }
    #endif

    @Test("progressOfRunning with a body that throws: the stream throws that error after the progress before it")
    func throwingBodyEndsTheStreamWithItsError() async {
        struct Refused: Error {}
        var seen: [String] = []
        var thrown: (any Error)?
        do {
            // Width 1: the first element completes, the second throws, the third never starts.
            for try await progress in progressOfRunning([1, 2, 3], width: 1, { if $0 == 2 { throw Refused() } }) {
                seen.append("\(progress)")
            }
        } catch {
            thrown = error
        }
        #expect(seen == ["1/3"])
        #expect(thrown is Refused, "the stream ended without saying why")
    }

    @Test("withWidthLimit: a caller cancelled once every element has started gets every value")
    func cancelledAfterEveryStart() async {
        let started = Countdown(2)
        let release = Flag()
        let caller = Task {
            try await withWidthLimit(2, over: [1, 2]) { element in
                started.arrive()
                _ = await release.wait(seconds: 30)  // returns its value, cancelled or not
                return element * 10
            }
        }
        #expect(await completes(within: 30) { await started.untilZero() })
        caller.cancel()
        release.raise()
        let result = await caller.result
        #expect((try? result.get()) == [10, 20], "every element started and returned, yet: \(result)")
    }

    @Test("withWidthLimit: a caller cancelled before every element has started gets CancellationError")
    func cancelledBeforeEveryStart() async {
        let started = Countdown(1)
        let release = Flag()
        let caller = Task {
            try await withWidthLimit(1, over: [1, 2]) { element in
                started.arrive()
                _ = await release.wait(seconds: 30)
                return element * 10
            }
        }
        #expect(await completes(within: 30) { await started.untilZero() })
        caller.cancel()
        release.raise()
        let result = await caller.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test("Countdown.untilZero() returns when the awaiting task is cancelled, and says it did not reach zero")
    func untilZeroHonoursCancellation() async {
        let countdown = Countdown(2)
        countdown.arrive()
        let reachedZero = Locked<Bool?>(nil)
        let waiting = Task {
            let reached = await countdown.untilZero()
            reachedZero.withLock { $0 = reached }
        }
        waiting.cancel()
        #expect(await completes(within: 10) { await waiting.value }, "a cancelled wait must end")
        #expect(reachedZero.withLock { $0 } == false)
        // The count itself is untouched: a later wait still ends when it reaches zero.
        countdown.arrive()
        #expect(await completes(within: 10) { _ = await countdown.untilZero() })
    }

    @Test("Countdown.untilZero(): a task cancelled while it waits is resumed with false")
    func untilZeroResumesACancelledWaiter() async {
        let countdown = Countdown(2)
        let reachedZero = Locked<Bool?>(nil)
        let waiting = Task {
            let reached = await countdown.untilZero()
            reachedZero.withLock { $0 = reached }
        }
        // Cancel only once the task is suspended in untilZero(): the cancellation handler, not
        // the check at entry, must answer.
        var registered = false
        for _ in 0..<30_000 where !registered {  // 30 s at most, polling every millisecond
            registered = countdown.waitingTasks > 0
            if !registered { try? await Task.sleep(nanoseconds: 1_000_000) }
        }
        #expect(registered, "the task never started waiting")
        waiting.cancel()
        #expect(await completes(within: 10) { await waiting.value }, "a cancelled wait must end")
        #expect(reachedZero.withLock { $0 } == false)
        #expect(countdown.waitingTasks == 0, "the cancelled waiter is no longer counted")
    }
}
