import AsyncOperations
import Dispatch
import Foundation
import OperationContract
import TaskOperations

/// Operations written to try the kit itself: hostile ones, which block or deadlock the threads
/// they run on, and ones that a careless kit misjudges.
///
/// Each hostile one must get a verdict within the kit's bound (30 × the patience), whatever it
/// does to its threads; the kit's tests run each in a process of its own, `contract-checks`.
public enum TrialSubject: String, CaseIterable, Sendable {
    /// `main()` spins on its queue's thread until its work ends.
    case spinning
    /// A `TaskOperation` whose closure blocks its thread (one of Swift's few cooperative
    /// threads) on a semaphore until its work ends.
    case blockingTask
    /// Foundation's own `BlockOperation`, whose block waits for its work.
    case blockingBlockOperation
    /// An `AsyncOperation` whose `main()` waits for its work before it finishes.
    case waitingMain
    /// Announces its finish while it holds the lock its getters take (chapter 2's
    /// `NotifyingUnderLockOperation`): the thread that finishes deadlocks inside
    /// `didChangeValue(forKey:)`, and from then on `isFinished` never answers.
    case deadlockingIsFinished
    /// Its `isReady` takes the lock that `start()` holds while it asks `isReady`: `start()`
    /// deadlocks, and from then on `isReady` never answers.
    case deadlockingIsReady
    /// `start()` takes its own lock twice: it deadlocks, and its getters still answer.
    case deadlockingStart
    /// Correct: each operation's work waits, without blocking, for one of four slots shared by
    /// all of them, as an app limits its requests.
    case throttled
    /// Exercise 6's reference solution as it was: a cancel that lands between the answer and
    /// the finish leaves a cancelled operation with a success.
    case racingResult
    /// Correct, checked while other work in the process fills Dispatch's threads for a second
    /// and a half (`Crowd`): on Linux its queue cannot start it then, nor Foundation's own
    /// operation.
    case crowdedDispatch
    /// The same crowd, and an operation whose `main()` never starts its work: still broken.
    case crowdedIdle
    /// `cancel()` changes the state in two steps, as `BrokenOperation`'s `unlockedCancel`, and
    /// the first cancel of all waits a tenth of a second before it (a log opened on first use):
    /// the thread that sends it falls behind the kit's others.
    case slowFirstCancel

    /// Whether the kit must answer for it within its bound, whatever else it finds.
    public var isHostile: Bool {
        switch self {
        case .spinning, .blockingTask, .blockingBlockOperation, .waitingMain, .deadlockingIsFinished,
            .deadlockingIsReady, .deadlockingStart:
            true
        case .throttled, .racingResult, .crowdedDispatch, .crowdedIdle, .slowFirstCancel: false
        }
    }

    /// Runs the kit on it.
    public func check(clauses: [ContractClause] = ContractClause.allCases, patience: Double = 2) async
        -> ContractReport
    {
        switch self {
        case .spinning:
            return await checkContract(clauses: clauses, patience: patience) { SpinningOperation($0) }
        case .blockingTask:
            return await checkContract(clauses: clauses, patience: patience, result: \.result) { work in
                TaskOperation { waitForTheEnd(of: work) }
            }
        case .blockingBlockOperation:
            return await checkContract(clauses: clauses, patience: patience) { work in
                BlockOperation { waitForTheEnd(of: work) }
            }
        case .waitingMain:
            return await checkContract(clauses: clauses, patience: patience) { WaitingMainOperation($0) }
        case .deadlockingIsFinished:
            return await checkContract(clauses: clauses, patience: patience) { DeadlockingGetters(.isFinished, $0) }
        case .deadlockingIsReady:
            return await checkContract(clauses: clauses, patience: patience) { DeadlockingGetters(.isReady, $0) }
        case .deadlockingStart:
            return await checkContract(clauses: clauses, patience: patience) { DeadlockingGetters(.start, $0) }
        case .throttled:
            let slots = Slots(4)
            return await checkContract(clauses: clauses, patience: patience) { ThrottledOperation($0, slots: slots) }
        case .racingResult:
            return await checkContract(clauses: clauses, patience: patience, result: \.result) {
                (work: ContractWork) -> RacingRequestOperation in
                let operation = RacingRequestOperation { done in work.start { done(.success("answer")) } }
                operation.onCancel { work.stop() }  // what cancelling a request does
                return operation
            }
        case .crowdedDispatch:
            let crowd = Crowd()
            return await checkContract(clauses: clauses, patience: patience) { work in
                crowd.fillDispatchOnce(for: 1.5)
                return BrokenOperation(.none, work)
            }
        case .crowdedIdle:
            let crowd = Crowd()
            return await checkContract(clauses: clauses, patience: patience) { _ in
                crowd.fillDispatchOnce(for: 1.5)
                return IdleOperation()
            }
        case .slowFirstCancel:
            let first = Locked(true)
            return await checkContract(clauses: clauses, patience: patience) { SlowFirstCancel($0, first: first) }
        }
    }
}

/// Work elsewhere in the process that fills Dispatch's threads for a while, as a test running
/// beside the check might.
final class Crowd: Sendable {
    private let filled = Locked(false)

    /// Queues more blocking items than Dispatch has threads, the first time only.
    ///
    /// Each sleeps until `seconds` from now. Dispatch on Linux adds a thread about once a
    /// second, so the items behind them wait; on Darwin it adds threads at once.
    func fillDispatchOnce(for seconds: Double) {
        let already = filled.withLock { filled in
            defer { filled = true }
            return filled
        }
        guard !already else { return }
        let end = Date(timeIntervalSinceNow: seconds)
        for _ in 0..<(4 * ProcessInfo.processInfo.activeProcessorCount + 8) {
            DispatchQueue.global().async { Thread.sleep(until: end) }
        }
    }
}

/// Blocks the calling thread until `work` ends.
///
/// Synchronous on purpose: the blocking is the
/// point, and a semaphore wait is unavailable from async code on Apple's platforms.
func waitForTheEnd(of work: ContractWork) {
    let ended = DispatchSemaphore(value: 0)
    work.start { ended.signal() }
    ended.wait()
}

/// `BrokenOperation`'s `unlockedCancel`, whose first cancel of all sleeps a tenth of a second
/// before it changes anything.
final class SlowFirstCancel: BrokenOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant, a Locked flag, to BrokenOperation.
    private let first: Locked<Bool>

    /// `first` is shared by every operation of the check: true until one of them is cancelled.
    init(_ work: ContractWork, first: Locked<Bool>) {
        self.first = first
        super.init(.unlockedCancel, work)
    }

    override func cancel() {
        let isFirst = first.withLock { first in
            defer { first = false }
            return first
        }
        if isFirst { Thread.sleep(forTimeInterval: 0.1) }
        super.cancel()
    }
}

/// Never starts its work, and never finishes.
final class IdleOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds nothing to its thread-safe base.
    override func main() {}
}

/// Spins on its thread until its work ends, then finishes.
final class SpinningOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: a constant, and a Locked flag.
    private let work: ContractWork
    private let ended = Locked(false)
    init(_ work: ContractWork) { self.work = work }
    override func main() {
        work.start { self.ended.withLock { $0 = true } }
        while !ended.withLock({ $0 }) {}
        finish()
    }
}

/// Waits for its work inside `main()`, then finishes.
final class WaitingMainOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to a thread-safe base.
    private let work: ContractWork
    init(_ work: ContractWork) { self.work = work }
    override func main() {
        waitForTheEnd(of: work)
        finish()
    }
}

/// An asynchronous operation whose lock makes one of three calls deadlock.
final class DeadlockingGetters: Operation, @unchecked Sendable {
    // @unchecked Sendable: `executing` and `finished` are only touched under `lock` (which is
    // the point: taken twice, it never lets go).
    enum Where { case isFinished, isReady, start }

    private let deadlocks: Where
    private let work: ContractWork
    private let lock = NSLock()
    private let startLock = NSLock()
    private var executing = false
    private var finished = false

    init(_ deadlocks: Where, _ work: ContractWork) {
        self.deadlocks = deadlocks
        self.work = work
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { executing } }
    override var isFinished: Bool { lock.withLock { finished } }
    override var isReady: Bool {
        deadlocks == .isReady ? lock.withLock { super.isReady } : super.isReady
    }

    override func start() {
        switch deadlocks {
        case .isReady: lock.withLock { _ = isReady }  // takes the lock again: a deadlock
        case .start: startLock.withLock { startLock.withLock {} }  // a lock of its own: the getters answer
        case .isFinished: break
        }
        if isCancelled {
            willChangeValue(forKey: "isFinished")
            lock.withLock { finished = true }
            return didChangeValue(forKey: "isFinished")
        }
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        work.start { self.finish() }
    }

    private func finish() {
        // The mistake of chapter 2's NotifyingUnderLockOperation: announced under the lock that
        // the getters take, which Foundation reads from inside didChangeValue(forKey:).
        lock.withLock {
            willChangeValue(forKey: "isExecuting")
            willChangeValue(forKey: "isFinished")
            executing = false
            finished = true
            didChangeValue(forKey: "isExecuting")
            didChangeValue(forKey: "isFinished")
        }
    }
}

/// A few slots shared by many operations: `take` runs its closure once one is free, without
/// blocking a thread.
final class Slots: Sendable {
    private let state: Locked<(free: Int, waiting: [@Sendable () -> Void])>

    init(_ count: Int) {
        state = Locked((count, []))
    }

    /// Runs `body` now if a slot is free, else as soon as one is given back.
    func take(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            guard state.free > 0 else {
                state.waiting.append(body)
                return false
            }
            state.free -= 1
            return true
        }
        if now { body() }
    }

    /// Gives a slot back: to the first waiting closure, if any.
    func giveBack() {
        let next = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?()
    }
}

/// Starts its work once it has one of the shared slots, and gives it back when the work ends.
final class ThrottledOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only constants to a thread-safe base.
    private let work: ContractWork
    private let slots: Slots
    init(_ work: ContractWork, slots: Slots) {
        self.work = work
        self.slots = slots
    }
    override func main() {
        onCancel { [work] in work.stop() }
        slots.take { [self] in
            work.start {
                self.finish()
                self.slots.giveBack()
            }
        }
    }
}
