import Dispatch
import Foundation

/// A piece of asynchronous work that the kit controls, for your operation to run.
///
/// ``checkContract(clauses:patience:_:)`` hands one to your factory for every operation it
/// makes. Your operation runs it the way it runs any work — from `main()`, or from a closure
/// that its `main()` calls — and finishes through its own API when the work ends:
///
/// ```swift
/// // A closure-based operation: the work calls back, the operation finishes.
/// { work in CompletionOperation { complete in work.start(then: complete) } }
///
/// // An async/await-based operation: the work returns, the operation finishes.
/// { work in TaskOperation { await work.run() } }
///
/// // A subclass of your own base, three lines long.
/// final class Checked: MyAsyncOperation {
///     let work: ContractWork
///     init(_ work: ContractWork) { self.work = work }
///     override func main() { work.start { self.finish() } }
/// }
/// ```
///
/// The kit decides when the work ends: at once, inside ``start(then:)``; later, from
/// another thread; twice; or not before your operation tells it to ``stop()``. If your
/// operation can stop its work when it is cancelled, have its cancellation call ``stop()``
/// (with `AsyncOperation`'s `onCancel(_:)`, for example); a `Task` that runs ``run()``
/// tells it by being cancelled.
public final class ContractWork: Sendable {
    /// How the kit ends the work.
    enum Ending: Sendable {
        /// When the kit calls `end()`.
        case held
        /// At once: inside `start(then:)`, before it returns; `run()` returns at once.
        case atOnce
        /// Soon, from another thread: a few milliseconds after it starts, from a thread of the
        /// kit's own — long enough that an operation that finished too early shows it.
        case soon
        /// When the operation calls `stop()` (or cancels the task running `run()`), inside
        /// that call — or when the kit calls `end()`.
        case whenStopped
        /// Soon after the operation calls `stop()`, from another thread, as a real request
        /// reports its cancellation — or when the kit calls `end()`.
        case soonAfterStopped
    }

    private struct State {
        var starts = 0
        var startedAt: Int?
        var endedAt: Int?
        var callback: Callback?
        var gate: CheckedContinuation<Void, Never>?
        var gateOpen = false
        var stopRequested = false
        var ranAsync = false
        var released = false
    }

    let ending: Ending
    private let state = Locked(State())
    /// Called at the start of the work, on the thread that starts it (the operation's
    /// `main()`, usually), once the start is recorded.
    private let onStart: @Sendable (ContractWork) -> Void
    let started = Signal()
    let ended = Signal()
    let stopped = Signal()
    /// Raised when `start(then:)` returns: work that ended inside it did not deadlock its thread.
    let startReturned = Signal()

    init(ending: Ending, onStart: @escaping @Sendable (ContractWork) -> Void = { _ in }) {
        self.ending = ending
        self.onStart = onStart
    }

    /// Starts the work; it calls `done` when it ends.
    ///
    /// Call it from your operation's `main()` and finish your operation in `done`. When the
    /// work ends depends on what the kit is checking: `done` may run before `start(then:)`
    /// returns, later on another thread, or twice. A cancelled operation never needs to
    /// call it.
    ///
    /// `done` need not be `@Sendable`: an operation written before Swift 6 hands its work a
    /// plain closure, and passes it on here as it is. The kit calls it on other threads, as a
    /// real request's completion is called.
    ///
    /// - Parameter done: what your operation does when its work is done, such as calling
    ///   `finish()` or a completion callback.
    public func start(then done: @escaping () -> Void) {
        defer { startReturned.raise() }
        begin(async: false, callback: Callback(done))
        if released { return endSoon() }
        switch ending {
        case .atOnce: end()
        case .soon: _ = KitClock.shared.after(0.005) { self.endSoon() }
        case .whenStopped: if stopWasRequested { end() }
        case .soonAfterStopped: if stopWasRequested { endSoon() }
        case .held: break
        }
    }

    /// Runs the work to its end.
    ///
    /// For operations built on async/await: await it in the task your operation runs, and
    /// finish when it returns. Cancelling that task tells the work to stop, as ``stop()``
    /// does.
    public func run() async {
        begin(async: true, callback: nil)
        if ending == .atOnce || released {
            state.withLock { $0.endedAt = $0.endedAt ?? Moment.next() }
            ended.raise()
            return
        }
        if ending == .soon { _ = KitClock.shared.after(0.005) { self.endSoon() } }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    if !state.gateOpen { state.gate = continuation }
                    return state.gateOpen
                }
                if open { continuation.resume() }
            }
        } onCancel: {
            self.stop()
        }
        state.withLock { $0.endedAt = $0.endedAt ?? Moment.next() }
        ended.raise()
    }

    /// Tells the work to stop, as `cancel()` stops a running request.
    ///
    /// Call it from your operation's cancellation, if it stops its work when cancelled. The
    /// work still ends the usual way: ``start(then:)`` calls `done`, ``run()`` returns —
    /// at once or a little later, as a real request reports its cancellation.
    public func stop() {
        let first = state.withLock { state in
            defer { state.stopRequested = true }
            return !state.stopRequested
        }
        guard first else { return }
        stopped.raise()
        if ending == .whenStopped { end() }
        if ending == .soonAfterStopped { endSoon() }
    }

    // MARK: - The kit's side

    /// How many times the work was started.
    var starts: Int { state.withLock { $0.starts } }
    var startedAt: Int? { state.withLock { $0.startedAt } }
    var endedAt: Int? { state.withLock { $0.endedAt } }
    var stopWasRequested: Bool { state.withLock { $0.stopRequested } }
    /// Whether the operation ran the work with `run()`, in a task.
    var ranAsync: Bool { state.withLock { $0.ranAsync } }
    private var released: Bool { state.withLock { $0.released } }

    /// Ends the work: calls `done` (on this thread) or lets `run()` return.
    ///
    /// Does nothing if the work has not started yet, or has ended.
    func end() {
        takeEnding()?()
    }

    /// Marks the work ended and returns `done`, for the kit to call — once, twice, or from two
    /// threads at once.
    ///
    /// For work that runs in a task (`run()`), lets it return, and returns nil.
    func takeEnding() -> (@Sendable () -> Void)? {
        let (callback, gate) = state.withLock { state in
            guard state.endedAt == nil, !state.gateOpen, state.starts > 0 else {
                return (Callback?.none, CheckedContinuation<Void, Never>?.none)
            }
            if state.ranAsync {
                state.gateOpen = true
                defer { state.gate = nil }
                return (nil, state.gate)
            }
            state.endedAt = Moment.next()
            defer { state.callback = nil }  // it holds the operation: let go of it
            return (state.callback, nil)
        }
        if callback != nil { ended.raise() }
        gate?.resume()
        guard let callback else { return nil }
        return { callback.call() }
    }

    /// The clause that made the work is over: a work still running ends now, and one that
    /// starts later ends as soon as it starts, from a thread of the kit's own.
    ///
    /// An operation that blocks a thread until its work ends gives it back.
    func release() {
        let running = state.withLock { state in
            state.released = true
            return state.starts > 0 && state.endedAt == nil && !state.gateOpen
        }
        if running { endSoon() }
    }

    /// Records the start, with the callback that ends the work: one step, so that an `end()`
    /// from another thread finds both or neither.
    private func begin(async: Bool, callback: Callback?) {
        state.withLock { state in
            state.starts += 1
            state.ranAsync = async
            if state.startedAt == nil { state.startedAt = Moment.next() }
            if let callback { state.callback = callback }
        }
        started.raise()
        onStart(self)
    }

    /// Ends the work from a new thread of the kit's own: whatever `done` does, it never holds
    /// a thread the kit needs.
    private func endSoon() {
        onKitThread("OperationContract.work") { self.end() }
    }
}

/// The operation's `done`, which the kit calls from its own threads.
///
/// `@unchecked Sendable`: `done` is only called, never changed, and an operation hands it to
/// its work to be called back from any thread — the work's completion, in an app, comes from a
/// network library's thread. A closure that may not be called from another thread is the
/// operation's own data race, which ThreadSanitizer reports.
private final class Callback: @unchecked Sendable {
    private let done: () -> Void

    init(_ done: @escaping () -> Void) {
        self.done = done
    }

    func call() { done() }
}
