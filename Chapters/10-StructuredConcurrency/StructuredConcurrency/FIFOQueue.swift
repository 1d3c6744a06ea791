import AsyncOperations

/// A serial, first-in-first-out queue for async work: what an `OperationQueue` with
/// `maxConcurrentOperationCount = 1` gives ready operations of one priority, and what creating
/// `Task {}`s in order does not.
///
/// `enqueue` is synchronous: the job is in line when it returns, in the order of the calls
/// (an `AsyncStream`'s continuation keeps the order of its `yield`s, from any thread). One
/// task takes the jobs out of the stream one at a time, and awaits each to the end — across
/// its suspensions — before it starts the next.
///
/// Each job runs in a task of its own, so that a cancel reaches it alone: cancelling the
/// caller of `value(of:)` cancels its job, and `cancelAll()` cancels every job in line and the
/// one running. A cancelled job still runs, in its turn, and sees `Task.isCancelled` from its
/// first line, as a cancelled task does: a job that checks ends at once.
///
/// Why not an actor's method? Calling an actor from synchronous code needs a `Task { await
/// actor.add(job) }`, and those tasks reach the actor in no promised order: the very problem.
public final class FIFOQueue: Sendable {
    public typealias Job = @Sendable () async -> Void

    private let line: AsyncStream<(Ticket, Job)>.Continuation
    private let worker: Task<Void, Never>
    /// The jobs enqueued and not finished yet: what `cancelAll()` reaches.
    private let unfinished = Locked<Set<Ticket>>([])

    public init() {
        let (stream, line) = AsyncStream.makeStream(of: (Ticket, Job).self)  // unbounded: no job dropped
        self.line = line
        worker = Task { [unfinished] in
            for await (ticket, job) in stream {
                await ticket.run(job)
                _ = unfinished.withLock { $0.remove(ticket) }
            }
        }
    }

    /// Puts `job` in line behind every job enqueued before it. Traps after `close()`: a
    /// closed queue runs no more jobs, and a job dropped without a word would be lost.
    public func enqueue(_ job: @escaping Job) {
        put(job, Ticket(), "enqueue(_:)")
    }

    /// Enqueues `job` and suspends until it has run; returns its value. Cancelling the caller
    /// cancels the job (it still runs, and returns what it returns when cancelled). Traps after
    /// `close()`, as `enqueue` does: the caller would otherwise wait forever.
    public func value<Value: Sendable>(of job: @escaping @Sendable () async -> Value) async -> Value {
        let ticket = Ticket()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                put({ continuation.resume(returning: await job()) }, ticket, "value(of:)")
            }
        } onCancel: {
            ticket.cancel()
        }
    }

    /// Cancels the job running and every job in line, as `cancelAllOperations()` cancels a
    /// queue's operations: each still runs, in its turn, and sees `Task.isCancelled`. Jobs
    /// enqueued afterwards are not cancelled.
    public func cancelAll() {
        for ticket in unfinished.withLock({ $0 }) { ticket.cancel() }
    }

    private func put(_ job: @escaping Job, _ ticket: Ticket, _ caller: String) {
        unfinished.withLock { _ = $0.insert(ticket) }
        // The stream is unbounded: a yield is either in line or refused because it was closed.
        guard case .enqueued = line.yield((ticket, job)) else {
            preconditionFailure("FIFOQueue.\(caller) after close(): a closed queue runs no more jobs")
        }
    }

    /// Stops taking jobs: those in line still run, then the worker ends. Enqueuing afterwards
    /// is a mistake, and traps.
    public func close() {
        line.finish()
    }

    /// Suspends until the worker has run every job and the queue is closed.
    public func untilClosedAndEmpty() async {
        await worker.value
    }

    deinit {
        line.finish()  // the worker runs what is in line, then ends
    }

    /// One job's place in line, and what cancels it: before the job starts, a mark its task reads
    /// first; while it runs, its task.
    fileprivate final class Ticket: Hashable, Sendable {
        private let state = Locked<(cancelled: Bool, task: Task<Void, Never>?)>((false, nil))

        func cancel() {
            let task = state.withLock { state in
                state.cancelled = true
                return state.task
            }
            task?.cancel()
        }

        /// Runs `job` in a task of its own and waits for it to end.
        func run(_ job: @escaping Job) async {
            let task = Task { [state] in
                // Cancelled while in line: the job sees it from its first line.
                if state.withLock({ $0.cancelled }) { withUnsafeCurrentTask { $0?.cancel() } }
                await job()
            }
            // Under the lock, either `cancel()` finds the task, or this finds the mark.
            let cancelledMeanwhile = state.withLock { state in
                state.task = task
                return state.cancelled
            }
            if cancelledMeanwhile { task.cancel() }
            await task.value
        }

        static func == (left: Ticket, right: Ticket) -> Bool { left === right }

        func hash(into hasher: inout Hasher) {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}
