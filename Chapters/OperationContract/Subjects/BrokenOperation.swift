import Foundation
import OperationContract

/// A small asynchronous operation that keeps the contract, unless it is told to make a mistake.
///
/// Each mistake is of a kind a chapter shows. The kit's own tests check that each mistake fails
/// the clause it breaks, and that the operation without a mistake passes every clause.
///
/// kvo pairs checked by hand: `didWithoutWill` leaves out its willChangeValue calls on
/// purpose (the mistake), and `finishedWhileStillExecuting` announces each key on its own;
/// every other path announces each key with willChangeValue before and didChangeValue after.
open class BrokenOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: `flags`, `handlers` and `kept` are only touched under `lock`
    // (except where `unlockedCancel` is the mistake); the rest are constants.

    public enum Mistake: String, CaseIterable, Sendable {
        /// None: the control.
        case none
        /// `finish()` announces "isFinished" before it clears `isExecuting` (chapter 2's
        /// AsyncAwaitPost order).
        case finishedWhileStillExecuting
        /// `finish()` never announces "isFinished" (chapter 2's SilentFinishOperation).
        case silentFinish
        /// `start()` holds a lock of its own while `main()` runs, which `finish()` takes too
        /// (to keep a finish from racing the start): work that ends inside `main()` deadlocks.
        case mainUnderTheLock
        /// `finish()` announces every time it is called, not only the first (chapter 4).
        case announcesEveryFinish
        /// `start()` runs the work even when the operation was cancelled (chapter 2's
        /// ManualStateOperation, before chapter 3).
        case startIgnoresCancel
        /// `cancel()` finishes an operation that still waits in its queue (chapter 3's
        /// FinishOnCancelOperation, chapter 4's bug 2).
        case cancelFinishesWaiting
        /// `cancel()` finishes an operation whose work still runs.
        case cancelFinishesRunning
        /// `cancel()` never tells the work to stop (chapter 5's article operation).
        case cancelIgnoresTheWork
        /// `cancel()` stops the work before it records the cancellation (chapter 3's
        /// FileUploadOperation).
        case workStoppedBeforeTheFlag
        /// `start()` says it is executing, then returns early without finishing if it was
        /// cancelled meanwhile (chapter 3's EarlyReturnOperation).
        case earlyReturnAfterStarting
        /// `isReady` is always true: dependencies are ignored.
        case readyIgnoresDependencies
        /// `isReady` also waits for every dependency to finish, cancelled or not: Foundation
        /// makes a cancelled operation ready at once, and never asks again when the dependency
        /// ends.
        case readyWaitsForDependencies
        /// `start()` of a cancelled operation announces that it is executing, then finishes it
        /// without its work.
        case executingWhenCancelled
        /// `cancel()` copies the state, changes the copy and writes it back in two steps: a
        /// finish in between is lost.
        case unlockedCancel
        /// The operation keeps a closure that captures it, for ever.
        case keepsItselfAlive
        /// Cancelled while its work runs, the operation keeps a closure that captures it, for
        /// ever: it leaks on that path only.
        case leaksWhenCancelledWhileRunning
        /// `didChangeValue(forKey:)` without `willChangeValue(forKey:)` before it.
        case didWithoutWill
        /// The result is recorded after "isFinished" is announced (chapter 6).
        case resultAfterFinish
    }

    private struct Flags {
        var executing = false
        var finished = false
        var cancelled = false
    }

    public let mistake: Mistake
    private let work: ContractWork
    private let lock = NSLock()
    private let startLock = NSLock()
    private var flags = Flags()
    private var handlers: [@Sendable () -> Void] = []
    private var stored: Result<Int, CancellationError>?
    private var kept: (() -> Void)?

    public init(_ mistake: Mistake, _ work: ContractWork) {
        self.mistake = mistake
        self.work = work
    }

    public override var isAsynchronous: Bool { true }
    public override var isExecuting: Bool { lock.withLock { flags.executing } }
    public override var isFinished: Bool { lock.withLock { flags.finished } }
    public override var isCancelled: Bool { lock.withLock { flags.cancelled } }
    public override var isReady: Bool {
        switch mistake {
        case .readyIgnoresDependencies: true
        case .readyWaitsForDependencies: super.isReady && dependencies.allSatisfy(\.isFinished)
        default: super.isReady
        }
    }

    /// The result once finished: a failure if it was cancelled, else a success.
    public var result: Result<Int, CancellationError>? { lock.withLock { stored } }

    public override func start() {
        let runs: Bool? = lock.withLock {
            guard !flags.executing && !flags.finished else { return nil }
            return !flags.cancelled || mistake == .startIgnoresCancel
        }
        switch runs {
        case nil:
            return
        case false:
            lock.withLock { stored = .failure(CancellationError()) }
            if mistake == .executingWhenCancelled {
                willChangeValue(forKey: "isExecuting")
                lock.withLock { flags.executing = true }
                didChangeValue(forKey: "isExecuting")
                willChangeValue(forKey: "isExecuting")
                lock.withLock { flags.executing = false }
                didChangeValue(forKey: "isExecuting")
            }
            willChangeValue(forKey: "isFinished")
            lock.withLock { flags.finished = true }
            didChangeValue(forKey: "isFinished")
        case true:
            willChangeValue(forKey: "isExecuting")
            lock.withLock { flags.executing = true }
            didChangeValue(forKey: "isExecuting")
            if mistake == .earlyReturnAfterStarting && isCancelled { return }
            if mistake == .mainUnderTheLock {
                startLock.withLock { main() }
            } else {
                main()
            }
        }
    }

    public override func main() {
        if mistake != .cancelIgnoresTheWork { onCancel { [work] in work.stop() } }
        if mistake == .keepsItselfAlive {
            lock.withLock { kept = { self.finish() } }
            work.start { self.lock.withLock { self.kept }?() }
        } else {
            work.start { self.finish() }
        }
    }

    public func finish() {
        if mistake == .mainUnderTheLock { startLock.lock() }
        defer { if mistake == .mainUnderTheLock { startLock.unlock() } }
        let claimed = lock.withLock {
            guard flags.executing && !flags.finished else { return mistake == .announcesEveryFinish }
            if mistake != .resultAfterFinish { stored = flags.cancelled ? .failure(CancellationError()) : .success(1) }
            return true
        }
        guard claimed else { return }
        switch mistake {
        case .finishedWhileStillExecuting:
            willChangeValue(forKey: "isFinished")
            lock.withLock { flags.finished = true }
            didChangeValue(forKey: "isFinished")
            willChangeValue(forKey: "isExecuting")
            lock.withLock { flags.executing = false }
            didChangeValue(forKey: "isExecuting")
        case .silentFinish:
            willChangeValue(forKey: "isExecuting")
            lock.withLock { (flags.executing, flags.finished) = (false, true) }
            didChangeValue(forKey: "isExecuting")
        case .didWithoutWill:
            lock.withLock { (flags.executing, flags.finished) = (false, true) }
            didChangeValue(forKey: "isExecuting")
            didChangeValue(forKey: "isFinished")
        default:
            willChangeValue(forKey: "isExecuting")
            willChangeValue(forKey: "isFinished")
            lock.withLock { (flags.executing, flags.finished) = (false, true) }
            didChangeValue(forKey: "isExecuting")
            didChangeValue(forKey: "isFinished")
        }
        if mistake == .resultAfterFinish {
            lock.withLock { stored = flags.cancelled ? .failure(CancellationError()) : .success(1) }
        }
    }

    public override func cancel() {
        guard !isFinished else { return }  // as Foundation's own: a late cancel changes nothing
        if mistake == .workStoppedBeforeTheFlag { runHandlers() }
        if mistake == .unlockedCancel {
            var copy = lock.withLock { flags }
            copy.cancelled = true
            usleep(300)  // a finish that lands here is lost when the copy is written back
            lock.withLock { flags = copy }
        } else {
            lock.withLock { flags.cancelled = true }
        }
        let (waiting, running) = lock.withLock { (!flags.executing && !flags.finished, flags.executing) }
        if mistake == .cancelFinishesWaiting && waiting {
            lock.withLock { stored = .failure(CancellationError()) }
            willChangeValue(forKey: "isFinished")
            lock.withLock { flags.finished = true }
            didChangeValue(forKey: "isFinished")
        }
        if mistake == .cancelFinishesRunning && running { finish() }
        if mistake == .leaksWhenCancelledWhileRunning && running { lock.withLock { kept = { self.finish() } } }
        super.cancel()
        runHandlers()
    }

    /// Runs `handler` once when the operation is cancelled: at once if it already is.
    private func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let now = lock.withLock {
            if !flags.cancelled { handlers.append(handler) }
            return flags.cancelled
        }
        if now { handler() }
    }

    private func runHandlers() {
        let handlers = lock.withLock {
            defer { self.handlers = [] }
            return self.handlers
        }
        for handler in handlers { handler() }
    }
}
