import AsyncOperations
import Exercise5
import Foundation
import TestSupport
import Testing

@Suite("Exercise 5 — cancel() reaches the running task")
struct Exercise5Tests {
    @Test("cancelling a running operation ends its task's one-minute sleep at once")
    func cancelReachesTheTask() async {
        let started = Flag()
        let sleepInterrupted = Flag()
        let operation = AsyncWorkOperation { () async throws -> String in
            started.raise()
            do {
                try await Task.sleep(nanoseconds: 60 * 1_000_000_000)  // ends early only if cancelled
            } catch {
                sleepInterrupted.raise()
                throw error
            }
            return "slept a minute"
        }
        OperationQueue().addOperation(operation)
        #expect(await started.wait(seconds: 5), "the operation's work never started")
        #expect(
            await blockingCall(within: 5) { operation.cancel() },
            "cancel() never returned: does it wait for the task to end? It only asks it to stop (hint: \"Only the task finishes\")"
        )
        #expect(
            operation.isCancelled,
            """
            isCancelled was false after cancel() returned: cancel() must call super.cancel() — first, before it cancels \
            the task, or the task may end the operation before it is marked cancelled (hint: "Forward the cancel")
            """)
        guard await sleepInterrupted.wait(seconds: 5) else {
            if await read({ operation.isFinished }) == true {
                Issue.record(
                    """
                    cancel() finished the operation while its task went on sleeping: only the task's end finishes \
                    it (main() does that); cancel() must call cancel() on the task that main() stored \
                    (hint: "Only the task finishes")
                    """)
            } else {
                Issue.record(
                    """
                    5 s after cancel() had returned, the task's one-minute sleep went on: cancel() must call cancel() on the task that main() \
                    stored (hint: "Forward the cancel")
                    """)
            }
            return
        }
        let finished = await queueLearnsFinished(operation, within: 5)
        #expect(
            finished,
            "the task was cancelled, but the operation never finished: main()'s task calls finish() (hint: \"Only the task finishes\")"
        )
        if finished {
            switch operation.result {
            case .failure(let error)? where error is CancellationError:
                break
            case nil:
                Issue.record(
                    """
                    the operation finished without a result: only the task's end may finish it (main() does that); \
                    cancel() just cancels the task (hint: "Only the task finishes")
                    """)
            case let other?:
                Issue.record(
                    "a cancelled sleep throws CancellationError, which is the result; got \(other) (hint: \"Only the task finishes\")"
                )
            }
        }
    }

    @Test("cancelled, it stays executing until its task has ended: the task may still be cleaning up")
    func finishesWhenTheTaskEnds() async {
        let started = Flag()
        let cleaningUp = Flag()
        let cleanUpMayEnd = Flag()
        let operation = AsyncWorkOperation { () async throws -> String in
            started.raise()
            do {
                try await Task.sleep(nanoseconds: 60 * 1_000_000_000)  // ends early only if cancelled
            } catch {
                cleaningUp.raise()
                _ = await cleanUpMayEnd.wait(seconds: 5)  // the work is not over until this returns
                throw error
            }
            return "slept a minute"
        }
        let finished = finishedFlag(operation)
        OperationQueue().addOperation(operation)
        guard await started.wait(seconds: 5) else {
            Issue.record("the operation's work never started")
            return
        }
        guard await blockingCall(within: 5, { operation.cancel() }) else {
            cleanUpMayEnd.raise()
            Issue.record(
                """
                cancel() never returned while the task was still cleaning up: it waits for the task to end (or for a \
                lock the task holds). cancel() only asks the task to stop; the task's end finishes the operation \
                (hint: "Only the task finishes")
                """)
            return
        }
        guard await cleaningUp.wait(seconds: 5) else {
            cleanUpMayEnd.raise()
            Issue.record(
                "5 s after cancel() had returned, the task was still sleeping, not cleaning up: cancel() must call cancel() on the task that main() stored (hint: \"Forward the cancel\")"
            )
            return
        }
        // The operation may not finish while its task runs: look for a moment.
        let finishedEarly = !(await finished.staysLowered(for: 0.3))
        cleanUpMayEnd.raise()
        #expect(
            !finishedEarly,
            """
            the operation finished while its task was still running (cleaning up after the cancel): whoever waits for \
            it, or depends on it, goes on too early. Only the task's end finishes it; cancel() just cancels the task \
            (hint: "Only the task finishes")
            """)
        #expect(
            await finished.wait(seconds: 5),
            "the task ended, but the operation never finished: main()'s task calls finish() (hint: \"Only the task finishes\")"
        )
        if case .failure(let error)? = operation.result, error is CancellationError {
        } else {
            Issue.record(
                "a cancelled task's result is its CancellationError; got \(String(describing: operation.result)) (hint: \"Only the task finishes\")"
            )
        }
    }

    @Test("an operation that is not cancelled returns its value")
    func value() async throws {
        let operation = AsyncWorkOperation { 6 * 7 }
        #expect(
            await OperationQueue().runs(operation, within: 5),
            "the operation never finished: main()'s task stores the outcome and calls finish() (hint: \"Only the task finishes\")"
        )
        let value = try? operation.result?.get()
        #expect(value == 42, "the result is the work's value, 42 (hint: \"Only the task finishes\")")
    }

    @Test("its result is there the moment it says it is finished")
    func resultBeforeFinished() async {
        let operation = WatchedWork(cancelling: .never) { "Hello World!" }
        guard await OperationQueue().runs(operation, within: 5) else {
            Issue.record(
                "5 s after it was queued, an operation whose work returns at once had not finished (hint: \"Only the task finishes\")"
            )
            return
        }
        switch operation.resultWhenFirstFinished {
        case .some(.some(.success("Hello World!"))):
            break
        case .some(.some(let other)):
            Issue.record(
                "when the operation first said it was finished, its result was \(other), not the work's value (hint: \"Only the task finishes\")"
            )
        case .some(.none):
            Issue.record(
                """
                when the operation first said it was finished, it had no result yet: whoever the queue lets go then \
                (a dependent, a waiter) reads nil. Store the outcome, then finish (hint: "Only the task finishes")
                """)
        case .none:
            Issue.record(
                """
                when the operation first said it was finished, its result could not be read from another thread \
                within 2 s: the lock it takes was held as the operation finished (hint: "Only the task finishes")
                """)
        }
    }

    @Test("when its task hears of the cancel, the operation already says it is cancelled")
    func cancelledBeforeTheTaskHears() async {
        // A cancellation handler inside the work runs the moment the task is cancelled, on the
        // thread that cancels it: from inside cancel(). The operation must be marked cancelled
        // by then, or the task may end — and the operation finish — before it is.
        let watched = WeakOperation()
        let started = Flag()
        let heard = Locked<Bool?>(nil)
        let operation = AsyncWorkOperation { () async throws -> String in
            try await withTaskCancellationHandler {
                started.raise()
                try await Task.sleep(nanoseconds: 60 * 1_000_000_000)
                return "slept a minute"
            } onCancel: {
                let cancelled = watched.operation?.isCancelled ?? false
                heard.withLock { if $0 == nil { $0 = cancelled } }
            }
        }
        watched.operation = operation
        OperationQueue().addOperation(operation)
        guard await started.wait(seconds: 5) else {
            Issue.record("the operation's work never started (hint: \"Forward the cancel\")")
            return
        }
        guard await blockingCall(within: 5, { operation.cancel() }) else {
            Issue.record("cancel() never returned (hint: \"Only the task finishes\")")
            return
        }
        // A task that hears of it later (or never: cancelReachesTheTask says so) is looked at too.
        _ = await queueLearnsFinished(operation, within: 5)
        #expect(
            heard.withLock { $0 } != false,
            """
            the task heard of the cancel while the operation did not say it was cancelled yet: cancel() cancels the \
            task before calling super.cancel(). The task may then end — and the operation finish — before it is \
            marked cancelled: it ends as if it had not been. Call super.cancel() first (hint: "Forward the cancel")
            """)
    }

    @Test("cancelled before it starts: it says so at once, and its work never runs")
    func cancelledBeforeStart() async {
        let probe = SleepProbe()
        let operation = AsyncWorkOperation(probe.work)
        guard await blockingCall(within: 5, { operation.cancel() }) else {
            Issue.record(
                "cancel(), called before the operation was queued, never returned (hint: \"Only the task finishes\")")
            return
        }
        guard await read({ operation.isCancelled }) == true else {
            Issue.record(
                """
                cancel(), called before the operation was queued, returned, and the operation said isCancelled = false: \
                the cancel was dropped. Whatever the task, cancel() marks the operation cancelled first: \
                super.cancel() (hint: "Forward the cancel")
                """)
            return
        }
        OperationQueue().addOperation(operation)
        #expect(
            await queueLearnsFinished(operation, within: 5),
            "cancelled before it was queued, the operation had not finished 5 s after it was queued (hint: \"Only the task finishes\")"
        )
        #expect(
            !probe.started.isRaised,
            "cancelled before it was queued, the operation ran its work all the same (hint: \"Forward the cancel\")")
    }

    @Test("cancelled after start() decided to run it, just before main(): main() passes the cancel on to its task")
    func cancelJustBeforeMain() async {
        let probe = SleepProbe()
        let operation = WatchedWork(cancelling: .beforeMain, probe.work)
        OperationQueue().addOperation(operation)
        await Self.expectTheTaskHears(
            probe, operation, when: "cancelled just before main() ran (the task did not exist yet)")
    }

    @Test("cancelled right after main() looks at isCancelled: the cancel still reaches the task")
    func cancelRightAfterMainLooks() async {
        // A cancel from another thread, between main()'s look at isCancelled and what follows
        // it: the look says "not cancelled", and the cancel lands at once after it. For each of
        // main()'s looks, in turn.
        for look in 1...3 {
            let probe = SleepProbe()
            let operation = WatchedWork(cancelling: .afterLook(look), probe.work)
            OperationQueue().addOperation(operation)
            guard await operation.mainReturned.wait(seconds: 5) else {
                Issue.record(
                    "5 s after the operation was queued, its main() had not returned (hint: \"Forward the cancel\")")
                return
            }
            guard operation.looks >= look else { return }
            let ordinal = ["first", "second", "third"][look - 1]
            await Self.expectTheTaskHears(
                probe, operation,
                when:
                    "cancelled from another thread right after main()'s \(ordinal) look at isCancelled (it said false)")
        }
    }

    @Test("cancelled from another thread while main() stores its task: the cancel reaches the task")
    func cancelAsMainStoresTheTask() async {
        // The cancel's thread has marked the operation cancelled and goes on to read the task
        // while main() creates and stores it: nothing of the test's orders the two. The tests see
        // whether the task hears of it; ThreadSanitizer, in the check's second run, sees a task
        // stored and read without a lock. Ten times: it does not see every such pair (with one
        // operation, measured: it saw the race in 9 runs of 12, and 10 of 16).
        for _ in 1...10 {
            let probe = SleepProbe()
            let operation = WatchedWork(cancelling: .fromAnotherThreadAsMainRuns, probe.work)
            OperationQueue().addOperation(operation)
            let when = "cancelled from another thread as main() stored its task"
            guard await Self.expectTheTaskHears(probe, operation, when: when) else { return }
            guard await operation.otherThreadsCancelReturned.wait(seconds: 5) else {
                Issue.record("\(when), its cancel() had not returned 5 s later (hint: \"Forward the cancel\")")
                return
            }
        }
    }

    @Test("cancelled before main(), its task cancelled by main() while the work listens: main() holds no lock then")
    func catchUpOutsideTheLock() async {
        // Task.cancel() runs the work's cancellation handlers at once, on the thread that calls
        // it: here main()'s, as it catches up with a cancel that came before the task existed.
        // This work's handler cancels the operation again (as a queue's cancelAllOperations()
        // would), so cancel() runs inside main()'s catch-up. main()'s look at isCancelled waits
        // until the work listens, so that the catch-up is what runs the handler.
        let watched = WeakOperation()
        let listening = DispatchSemaphore(value: 0)
        let probe = SleepProbe()
        let (handlerCancels, handlersCancelReturned) = (Flag(), Flag())
        let operation = WatchedWork(cancelling: .beforeMainOnceTheWorkListens(listening)) { () async throws -> String in
            try await withTaskCancellationHandler {
                listening.signal()
                return try await probe.work()
            } onCancel: {
                handlerCancels.raise()
                watched.operation?.cancel()
                handlersCancelReturned.raise()
            }
        }
        watched.operation = operation
        OperationQueue().addOperation(operation)
        guard await operation.mainReturned.wait(seconds: 5) else {
            let seen =
                !handlerCancels.isRaised
                ? "the work's cancellation handler had not run"
                : handlersCancelReturned.isRaised
                    ? "the work's cancellation handler had run, and its cancel() of the operation had returned"
                    : "the work's cancellation handler had run, and its cancel() of the operation had not returned"
            Issue.record(
                Comment(
                    rawValue: """
                        cancelled before main() ran, main() had not returned 5 s after the operation was queued; \
                        \(seen). Task.cancel() runs the handlers at once: call it outside any lock (hint: "Forward \
                        the cancel")
                        """))
            return
        }
        await Self.expectTheTaskHears(probe, operation, when: "cancelled just before main() ran, the work listening")
    }

    @Test("cancelled once it has finished, it keeps its result")
    func cancelAfterFinish() async {
        let operation = AsyncWorkOperation { 6 * 7 }
        guard await OperationQueue().runs(operation, within: 5) else {
            Issue.record(
                "5 s after it was queued, an operation whose work returns at once had not finished (hint: \"Only the task finishes\")"
            )
            return
        }
        guard await blockingCall(within: 5, { operation.cancel() }) else {
            Issue.record(
                "cancel(), called once the operation had finished, never returned (hint: \"Only the task finishes\")")
            return
        }
        let value = try? operation.result?.get()
        #expect(
            value == 42,
            "cancelled once it had finished with 42, the operation's result became \(String(describing: operation.result)): a finished operation keeps its result (hint: \"Only the task finishes\")"
        )
    }

    /// Expects the sleeping work of `operation` to be interrupted (its task cancelled), and the
    /// operation to finish with CancellationError; `when` says how it was cancelled.
    @discardableResult
    static func expectTheTaskHears(_ probe: SleepProbe, _ operation: WatchedWork, when: String) async -> Bool {
        guard await probe.started.wait(seconds: 5) else {
            if operation.isFinished { return true }  // start() finished it without main(): the task never existed
            Issue.record(
                Comment(
                    rawValue:
                        "\(when), the operation had not started its work 5 s after it was queued (hint: \"Forward the cancel\")"
                ))
            return false
        }
        guard await probe.interrupted.wait(seconds: 5) else {
            Issue.record(
                Comment(
                    rawValue: """
                        \(when), the operation's task went on sleeping: 5 s later its one-minute sleep had not been \
                        interrupted. The cancel must reach the task whenever it lands: cancel() cancels the task that \
                        is stored, and main() cancels the one it stores if the operation is already cancelled \
                        (hint: "Forward the cancel")
                        """))
            return false
        }
        guard await queueLearnsFinished(operation, within: 5) else {
            Issue.record(
                Comment(
                    rawValue:
                        "\(when), the task's sleep was interrupted, and 5 s later the operation had not finished (hint: \"Only the task finishes\")"
                ))
            return false
        }
        if case .failure(let error)? = operation.result, error is CancellationError { return true }
        Issue.record(
            Comment(
                rawValue:
                    "\(when), the operation's result was \(String(describing: operation.result)); a cancelled sleep throws CancellationError, which is the result (hint: \"Only the task finishes\")"
            ))
        return false
    }

    @Test("an operation that has finished is freed: nothing it started goes on holding it")
    func freedOnceFinished() async {
        weak var gone: AsyncWorkOperation<Int>?
        do {
            let operation = AsyncWorkOperation { 6 * 7 }
            gone = operation
            #expect(
                await OperationQueue().runs(operation, within: 5),
                "5 s after it was queued, an operation whose work returns at once had not finished (hint: \"Only the task finishes\")"
            )
        }
        let deadline = ContinuousClock.now + .seconds(3 * boundStretch)  // the queue lets go on its own thread
        while gone != nil && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        #expect(
            gone == nil,
            """
            the operation finished, and 3 s later it had not been freed: something it started still held it, \
            running on after the operation's end. What main() starts ends with the task; the cancel reaches the \
            task from cancel(), not from something that watches for it (hint: "Forward the cancel")
            """)
    }
}

/// Work that sleeps a minute, unless its task is cancelled: it says when it starts, and when its
/// sleep was interrupted.
final class SleepProbe: Sendable {
    let started = Flag()
    let interrupted = Flag()

    var work: @Sendable () async throws -> String {
        { [started, interrupted] in
            started.raise()
            do {
                try await Task.sleep(nanoseconds: 60 * 1_000_000_000)  // ends early only if cancelled
            } catch {
                interrupted.raise()
                throw error
            }
            return "slept a minute"
        }
    }
}

/// The exercise's operation, cancelled at one exact point around `main()`:
/// - `.beforeMain`: after `start()` decided to run it, just before `main()`;
/// - `.beforeMainOnceTheWorkListens(s)`: the same, and `main()`'s first look at `isCancelled`
///   waits until the work signals `s` (it listens for the cancel) before it answers;
/// - `.afterLook(n)`: from another thread, right after `main()`'s n-th read of `isCancelled`,
///   which returns what it read before the cancel;
/// - `.fromAnotherThreadAsMainRuns`: another thread's `cancel()` has marked it cancelled (the
///   base's `super.cancel()` is done) and waits inside it — a handler of the base's `onCancel`,
///   which runs last in `super.cancel()` — while `main()` runs; a thread that nothing of
///   `main()`'s orders lets it go on a moment later.
final class WatchedWork: AsyncWorkOperation<String>, @unchecked Sendable {
    // @unchecked Sendable: flags; `mainThread` and `readsInMain` only touched under `lock`.
    enum Point: Sendable {
        case never
        case beforeMain
        case afterLook(Int)
        case fromAnotherThreadAsMainRuns
        case beforeMainOnceTheWorkListens(DispatchSemaphore)
    }

    let point: Point
    let mainReturned = Flag()
    /// With `.fromAnotherThreadAsMainRuns`: raised once the other thread's cancel() has returned.
    let otherThreadsCancelReturned = Flag()
    private let lock = NSLock()
    private var mainThread: ThreadIdentity?
    private var readsInMain = 0
    private var waitedForTheWork = false
    private var sawFinished = false
    private var firstFinishedResult: Result<String, any Error>??
    private let inCancel = DispatchSemaphore(value: 0)
    private let mainDone = DispatchSemaphore(value: 0)

    init(cancelling point: Point, _ work: @escaping @Sendable () async throws -> String) {
        self.point = point
        super.init(work)
        if case .fromAnotherThreadAsMainRuns = point {
            onCancel { [inCancel] in inCancel.signal() }
        }
    }

    /// How many times main() read isCancelled.
    var looks: Int { lock.withLock { readsInMain } }

    override func main() {
        switch point {
        case .beforeMain, .beforeMainOnceTheWorkListens:
            cancel()
        case .fromAnotherThreadAsMainRuns:
            Thread {
                self.cancel()
                self.otherThreadsCancelReturned.raise()
                // Alive until main() has returned: ThreadSanitizer may forget the accesses of a
                // thread that has ended, and this one's read may come before main()'s write.
                _ = self.mainDone.wait(timeout: .now() + 2 * boundStretch)
            }.start()
            _ = inCancel.wait(timeout: .now() + 2 * boundStretch)
        case .afterLook, .never:
            break
        }
        lock.withLock { mainThread = .current }
        super.main()
        lock.withLock { mainThread = nil }
        mainDone.signal()
        mainReturned.raise()
    }

    /// The result when the operation first said it was finished, read then from another thread;
    /// `.some(nil)` if there was none, nil if it was never read (or could not be: its lock held).
    var resultWhenFirstFinished: Result<String, any Error>?? { lock.withLock { firstFinishedResult } }

    override var isFinished: Bool {
        let finished = super.isFinished
        guard finished, lock.withLock({ !sawFinished }) else { return finished }
        lock.withLock { sawFinished = true }
        let read = DispatchSemaphore(value: 0)
        Thread {
            let result = self.result
            self.lock.withLock { self.firstFinishedResult = .some(result) }
            read.signal()
        }.start()
        _ = read.wait(timeout: .now() + 2 * boundStretch)
        return finished
    }

    override var isCancelled: Bool {
        if case .beforeMainOnceTheWorkListens(let listening) = point,
            lock.withLock({ () -> Bool in
                guard mainThread == .current, !waitedForTheWork else { return false }
                waitedForTheWork = true
                return true
            })
        {
            _ = listening.wait(timeout: .now() + 2 * boundStretch)  // at main()'s first look only
        }
        let said = super.isCancelled
        guard case .afterLook(let look) = point else { return said }
        let cancelNow = lock.withLock { () -> Bool in
            guard mainThread == .current else { return false }
            readsInMain += 1
            return readsInMain == look
        }
        if cancelNow {
            let returned = DispatchSemaphore(value: 0)
            Thread {
                self.cancel()
                returned.signal()
            }.start()
            _ = returned.wait(timeout: .now() + 2 * boundStretch)  // bounded: main() may hold a lock cancel() needs
        }
        return said
    }
}

/// A weak reference to an operation, for a closure that the operation itself holds.
private final class WeakOperation: @unchecked Sendable {
    // @unchecked Sendable: `operation` is set once, before the operation is queued.
    weak var operation: AsyncWorkOperation<String>?
}
