/// A serial, first-in-first-out queue for async work: what an `OperationQueue` with
/// `maxConcurrentOperationCount = 1` promises, and what creating `Task {}`s in order does not.
///
/// `enqueue` is synchronous: the job is in line when it returns, in the order of the calls
/// (an `AsyncStream`'s continuation keeps the order of its `yield`s, from any thread). One
/// task takes the jobs out of the stream one at a time, and awaits each to the end — across
/// its suspensions — before it starts the next.
///
/// Why not an actor's method? Calling an actor from synchronous code needs a `Task { await
/// actor.add(job) }`, and those tasks reach the actor in no promised order: the very problem.
public final class FIFOQueue: Sendable {
    public typealias Job = @Sendable () async -> Void

    private let jobs: AsyncStream<Job>.Continuation
    private let worker: Task<Void, Never>

    public init() {
        let (stream, jobs) = AsyncStream.makeStream(of: Job.self)  // unbounded: no job dropped
        self.jobs = jobs
        worker = Task {
            for await job in stream { await job() }
        }
    }

    /// Puts `job` in line behind every job enqueued before it. Traps after `close()`: a
    /// closed queue runs no more jobs, and a job dropped without a word would be lost.
    public func enqueue(_ job: @escaping Job) {
        put(job, "enqueue(_:)")
    }

    /// Enqueues `job` and suspends until it has run; returns its value. Traps after `close()`,
    /// as `enqueue` does: the caller would otherwise wait forever.
    public func value<Value: Sendable>(of job: @escaping @Sendable () async -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            put({ continuation.resume(returning: await job()) }, "value(of:)")
        }
    }

    private func put(_ job: @escaping Job, _ caller: String) {
        // The stream is unbounded: a yield is either in line or refused because it was closed.
        guard case .enqueued = jobs.yield(job) else {
            preconditionFailure("FIFOQueue.\(caller) after close(): a closed queue runs no more jobs")
        }
    }

    /// Stops taking jobs: those in line still run, then the worker ends. Enqueuing afterwards
    /// is a mistake, and traps.
    public func close() {
        jobs.finish()
    }

    /// Suspends until the worker has run every job and the queue is closed.
    public func untilClosedAndEmpty() async {
        await worker.value
    }

    deinit {
        jobs.finish()  // the worker runs what is in line, then ends
    }
}
