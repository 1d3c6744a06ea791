import AsyncOperations
import Cancellation
import ChainedOperations
import Foundation
import ResultOperations
import TaskOperations
import TestSupport
import Testing

// Regression tests for the library's lifecycle defects: each failed on the code before its
// fix (the commit that fixes it says how). Crash scenarios run in a child process.

/// A result operation whose work answers on `held`, once the test releases it.
private final class HeldResultOperation: AsyncResultOperation<String, UnfurlError>, @unchecked Sendable {
    // @unchecked Sendable: adds only `let` properties to a thread-safe superclass.
    let held = HeldQueue()
    let mainRuns = Counter()
    override func main() {
        mainRuns.increment()
        held.queue.async { self.finish(with: .success("worked")) }
    }
}

@Suite("The library's lifecycle: illegal orders of calls change nothing", .timeLimit(.minutes(1)))
struct LifecycleRegressionTests {
    #if os(macOS) || os(Linux)
        /// Before the fix, the second start() took the cancelled running operation for one
        /// cancelled before it started and left it executing for ever. Now a second start()
        /// while the operation runs traps, as Foundation's start() does.
        @Test(
            "start(); cancel(); start() of a result operation: the second start() traps instead of leaving it stuck",
            .exitTest)
        func secondStartAfterCancel() async {
            let result = await #expect(
                processExitsWith: .failure, observing: [\.standardOutputContent, \.standardErrorContent]
            ) {
                let operation = HeldResultOperation()
                operation.start()
                operation.cancel()
                print("main() ran \(operation.mainRuns.value) time(s)")
                fflush(nil)
                operation.start()
                exit(0)
            }
            let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
            #expect(printed == "main() ran 1 time(s)\n", "\(printed)")
            let errors = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(errors.contains("was started again while it runs"), "\(errors)")
        }
    #endif

    #if os(Linux)
        @Test("a subclass whose cancel() calls finish() between start()'s state change and main(): main() never runs")
        func finishBeforeMain() {
            let operation = CancelsAsItStarts()
            operation.start()
            #expect(operation.isFinished && operation.isCancelled)
            #expect(operation.mainRuns.value == 0, "main() started work for a finished operation")
        }
    #else
        // Darwin: the test hooks the read of isExecuting that Linux's didChangeValue makes while
        // start() announces "executing"; when key-value observing reads it is not documented, so
        // the same moment cannot be reached from a test there. The fix (main() runs only for an
        // operation still executing and not finishing) is the same code on both platforms.
    #endif

    @Test("TaskOperation: 2,000 cancels racing the task's end never leave isCancelled with a .success")
    func taskOperationCancelRace() async {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        let operations = (0..<2_000).map { _ in
            // The closure sends the cancel off as it returns: it lands around "result recorded".
            let target = Locked<Operation?>(nil)
            let operation = TaskOperation { () -> String in
                let operation = target.withLock { $0 }
                DispatchQueue.global().async { operation?.cancel() }
                return "done"
            }
            target.withLock { $0 = operation }
            operation.completionBlock = { target.withLock { $0 = nil } }
            return operation
        }
        queue.add(operations)
        #expect(await drained(queue, within: 30))
        let contradictions = operations.filter { $0.isCancelled && (try? $0.result?.get()) != nil }
        #expect(contradictions.isEmpty, "\(contradictions.count) cancelled operations kept a .success")
        #expect(operations.allSatisfy { $0.result != nil })
    }

    @Test("AsyncResultOperation: 1,000 cancels racing finish(with:) never leave isCancelled with a .success")
    func resultOperationCancelRace() async {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        let operations = (0..<1_000).map { _ in FinishesRacingACancel() }
        queue.add(operations)
        #expect(await drained(queue, within: 30))
        let contradictions = operations.filter { $0.isCancelled && $0.result?.value != nil }
        #expect(contradictions.isEmpty, "\(contradictions.count) cancelled operations kept a .success")
        #expect(operations.allSatisfy { $0.result != nil })
    }

    @Test("a cancel() after the operation finished changes nothing")
    func cancelAfterFinish() async {
        let operation = FinishesRacingACancel(cancelling: false)
        #expect(await OperationQueue().runs(operation))
        operation.cancel()
        #expect(!operation.isCancelled)
        #expect(operation.result?.value == "done")
    }
}

/// A subclass that finishes from `cancel()` when executing — which the base's documentation
/// allows: `finish()` is safe from any thread — and is cancelled the moment it announces that
/// it is executing, before `start()` calls `main()`.
private final class CancelsAsItStarts: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only thread-safe counters to a thread-safe superclass.
    let mainRuns = Counter()
    private let announcements = Counter()

    override func cancel() {
        super.cancel()
        if isExecuting { finish() }
    }

    /// On Linux, announcing "isExecuting" reads this getter before `didChangeValue` returns,
    /// that is before `start()` goes on to `main()`: the first read that answers true cancels.
    /// (When Darwin reads it is not documented, so the test runs on Linux only.)
    override var isExecuting: Bool {
        let executing = super.isExecuting
        if executing {
            announcements.increment()
            if announcements.value == 1 { cancel() }
        }
        return executing
    }

    override func main() { mainRuns.increment() }
}

/// Finishes with "done" from another thread as soon as it runs, while a third thread cancels
/// it (unless told not to).
private final class FinishesRacingACancel: AsyncResultOperation<String, UnfurlError>, @unchecked Sendable {
    // @unchecked Sendable: adds only a `let` to a thread-safe superclass.
    private let cancelling: Bool

    init(cancelling: Bool = true) {
        self.cancelling = cancelling
    }

    override func main() {
        guard cancelling else { return DispatchQueue.global().async { self.finish(with: .success("done")) } }
        // Two threads that set off together: one finishes, one cancels.
        let arrived = Locked(0)
        let setOff: @Sendable () -> Void = {
            arrived.withLock { $0 += 1 }
            while arrived.withLock({ $0 }) < 2 { sched_yield() }
        }
        Thread {
            setOff()
            self.cancel()
        }.start()
        Thread {
            setOff()
            self.finish(with: .success("done"))
        }.start()
    }
}
