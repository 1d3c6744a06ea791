import AsyncOperations

/// A serial, first-in-first-out queue for async work: what an `OperationQueue` with
/// `maxConcurrentOperationCount = 1` gives ready operations of one priority, and what creating
/// `Task {}`s in order does not.
///
/// `enqueue` is synchronous: it creates the job's task at once, and that task first awaits the
/// task of the job enqueued before it — to its end, across its suspensions — then runs its
/// job. So the jobs run one at a time, in the order of the calls, from any thread.
///
/// Each job has a task of its own, so a cancel reaches it alone: cancelling the caller of
/// `value(of:)` cancels its job, and `cancelAll()` cancels every job in line and the one
/// running. A cancelled job still runs, in its turn, and sees `Task.isCancelled` from its
/// first line, as a cancelled task does: a job that checks ends at once.
///
/// Why not an actor's method? Calling an actor from synchronous code needs a `Task { await
/// actor.add(job) }`, and those tasks reach the actor in no promised order: the very problem.
public final class FIFOQueue: Sendable {
    public typealias Job = @Sendable () async -> Void

    private struct Line {
        /// The task of the job enqueued last: the next job waits for it.
        var last: Task<Void, Never>?
        /// The tasks of the jobs not finished yet, by number: what `cancelAll()` reaches.
        var unfinished: [UInt64: Task<Void, Never>] = [:]
        var nextNumber: UInt64 = 0
        var closed = false
    }

    private let line = Locked(Line())
    private let closing: AsyncStream<Never>.Continuation
    /// Ends when `close()` is called.
    private let closed: Task<Void, Never>

    public init() {
        let (stream, closing) = AsyncStream.makeStream(of: Never.self)
        self.closing = closing
        closed = Task { for await _ in stream {} }
    }

    /// Puts `job` in line behind every job enqueued before it. Traps after `close()`: a
    /// closed queue runs no more jobs, and a job dropped without a word would be lost.
    public func enqueue(_ job: @escaping Job) {
        put(job, "enqueue(_:)")
    }

    /// Enqueues `job` and suspends until it has run; returns its value. Cancelling the caller
    /// cancels the job (it still runs, and returns what it returns when cancelled). Traps after
    /// `close()`, as `enqueue` does: the caller would otherwise wait forever.
    public func value<Value: Sendable>(of job: @escaping @Sendable () async -> Value) async -> Value {
        let value = Locked<Value?>(nil)
        let task = put(
            {
                let result = await job()
                value.withLock { $0 = result }
            }, "value(of:)")
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        return value.withLock { $0! }  // the job returned before its task ended
    }

    /// Cancels the job running and every job in line, as `cancelAllOperations()` cancels a
    /// queue's operations: each still runs, in its turn, and sees `Task.isCancelled`. Jobs
    /// enqueued afterwards are not cancelled.
    public func cancelAll() {
        for task in line.withLock({ Array($0.unfinished.values) }) { task.cancel() }
    }

    @discardableResult
    private func put(_ job: @escaping Job, _ caller: String) -> Task<Void, Never> {
        line.withLock { [line] state in
            precondition(!state.closed, "FIFOQueue.\(caller) after close(): a closed queue runs no more jobs")
            let previous = state.last
            let number = state.nextNumber
            let task = Task {
                await previous?.value  // the job before this one, to its end
                await job()
                _ = line.withLock { $0.unfinished.removeValue(forKey: number) }
            }
            state.last = task
            state.unfinished[number] = task
            state.nextNumber += 1
            return task
        }
    }

    /// Stops taking jobs: those in line still run. Enqueuing afterwards is a mistake, and traps.
    public func close() {
        line.withLock { $0.closed = true }
        closing.finish()
    }

    /// Suspends until the queue is closed and has run every job.
    public func untilClosedAndEmpty() async {
        await closed.value
        await line.withLock { $0.last }?.value
    }

    deinit {
        closing.finish()  // ends `closed`; the jobs in line run on, each holding the one before
    }
}
