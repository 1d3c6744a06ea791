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

    /// Puts `job` in line behind every job enqueued before it.
    public func enqueue(_ job: @escaping Job) {
        jobs.yield(job)
    }

    /// Enqueues `job` and suspends until it has run; returns its value.
    public func value<Value: Sendable>(of job: @escaping @Sendable () async -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            enqueue { continuation.resume(returning: await job()) }
        }
    }

    /// Stops taking jobs: those in line still run, then the worker ends.
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
