import AsyncOperations
import Dispatch
import Foundation
import OperationContract
import TaskOperations

/// True if `body` returns within `seconds`, false if not (`Flag.wait`: a wait for what must
/// happen, which goes on while the process still works). A body that never returns is left
/// suspended (it holds no thread), so the test can fail cleanly instead of hanging.
public func completes(within seconds: Double = 10, _ body: @escaping @Sendable () async -> Void) async -> Bool {
    await started(body).wait(seconds: seconds)
}

/// True if `body` has not returned once `seconds` have passed: for a check that something
/// does not happen (`Flag.staysLowered`), on time whatever the load.
public func staysPending(for seconds: Double, _ body: @escaping @Sendable () async -> Void) async -> Bool {
    await started(body).staysLowered(for: seconds)
}

/// Starts `body` in a task of its own; the flag is raised once it returns.
private func started(_ body: @escaping @Sendable () async -> Void) -> Flag {
    let returned = Flag()
    Task {
        await body()
        returned.raise()
    }
    return returned
}

/// True once the queue has learned that `operation` finished, false after `seconds`.
///
/// It asks the queue machinery itself, through chapter 5's `untilFinished()`: an observer
/// operation that depends on `operation` runs only after `operation` announced "isFinished".
/// No thread is blocked.
public func queueLearnsFinished(_ operation: Operation, within seconds: Double = 10) async -> Bool {
    await completes(within: seconds) { await operation.untilFinished() }
}

/// True if the queue has not learned that `operation` finished once `seconds` have passed:
/// for a check that it never does (`staysPending`).
public func queueDoesNotLearnFinished(_ operation: Operation, within seconds: Double) async -> Bool {
    await staysPending(for: seconds) { await operation.untilFinished() }
}

/// A flag that is raised once the queue machinery has learned that `operation` finished (the
/// same question as `queueLearnsFinished`), for a test that must also look before that.
public func finishedFlag(_ operation: Operation) -> Flag {
    let finished = Flag()
    Task {
        await operation.untilFinished()
        finished.raise()
    }
    return finished
}

/// True once every operation added to `queue` so far has finished, false after `seconds`.
///
/// Not for a queue that `cancelAllOperations()` may cancel afterwards: on Linux, cancelling
/// a pending barrier block crashes Foundation (chapter 3's README; tested there).
public func drained(_ queue: OperationQueue, within seconds: Double = 10) async -> Bool {
    await drainedFlag(queue).wait(seconds: seconds)
}

/// True if an operation added to `queue` so far has still not finished once `seconds` have
/// passed: for a check that the queue never drains (the same caveat as `drained`).
public func doesNotDrain(_ queue: OperationQueue, within seconds: Double) async -> Bool {
    await drainedFlag(queue).staysLowered(for: seconds)
}

private func drainedFlag(_ queue: OperationQueue) -> Flag {
    let drained = Flag()
    queue.addBarrierBlock { drained.raise() }
    return drained
}

/// Runs a blocking call (`waitUntilFinished`, a semaphore wait) on a thread of its own, so
/// that it blocks neither the test nor the cooperative thread pool. True if it returned
/// within `seconds` (`Flag.wait`); if not, its thread stays blocked and the test can fail
/// cleanly.
///
/// The thread carries `threadMark`, if given: an override in a test's subclass can then tell
/// the calls that `body` made (`ThreadMark.isSet`) from those of other threads.
public func blockingCall(
    threadMark: String? = nil, within seconds: Double = 10, _ body: @escaping @Sendable () -> Void
) async -> Bool {
    await onItsOwnThread(threadMark: threadMark, body).wait(seconds: seconds)
}

/// True if a blocking call, on a thread of its own, has not returned once `seconds` have
/// passed: for a check that it never does (`Flag.staysLowered`). Its thread stays blocked.
public func keepsBlocking(for seconds: Double, _ body: @escaping @Sendable () -> Void) async -> Bool {
    await onItsOwnThread(threadMark: nil, body).staysLowered(for: seconds)
}

/// Starts `body` on a thread of its own, marked with `threadMark`; the flag is raised once it
/// returns.
private func onItsOwnThread(threadMark: String?, _ body: @escaping @Sendable () -> Void) -> Flag {
    let returned = Flag()
    Thread {
        if let threadMark { ThreadMark.set(threadMark) }
        body()
        returned.raise()
    }.start()
    return returned
}

/// A mark on the current thread, for overrides in a test's subclass that must tell the calls
/// made on a test's own thread from those of other threads. (A thread's `name` cannot do it:
/// on Linux, a `Thread` reads its own name back as the process's.)
public enum ThreadMark {
    /// Marks the current thread with `mark`, for as long as it lives.
    public static func set(_ mark: String) {
        Thread.current.threadDictionary[mark] = true
    }

    /// True on a thread marked with `mark`.
    public static func isSet(_ mark: String) -> Bool {
        Thread.current.threadDictionary[mark] != nil
    }
}

/// A serial dispatch queue that starts suspended: work sent to it waits until `release()`.
/// Tests use it to hold an operation's asynchronous work, so that what happens before the
/// work runs is caused, not a race.
public final class HeldQueue: Sendable {
    public let queue: DispatchQueue
    private let released = Locked(false)

    public init(_ label: String = "held-work") {
        queue = DispatchQueue(label: label)
        queue.suspend()
    }

    public func release() {
        let first = released.withLock { released in
            defer { released = true }
            return !released
        }
        if first { queue.resume() }
    }

    deinit {
        release()  // a suspended queue must not be released (libdispatch traps)
    }
}

/// Counts calls from any thread, and lets a test await a given count.
public final class Counter: Sendable {
    private let count = Locked(0)
    private let target: Int
    private let targetReached = Flag()

    /// - Parameter target: the count that `waitForTarget` waits for.
    public init(target: Int = .max) {
        self.target = target
    }

    public var value: Int { count.withLock { $0 } }

    @Sendable public func increment() {
        let reached = count.withLock { count in
            count += 1
            return count == target
        }
        if reached { targetReached.raise() }
    }

    /// True once the count reached `target`, false after `seconds` (`Flag.wait`).
    public func waitForTarget(seconds: Double = 10) async -> Bool {
        await targetReached.wait(seconds: seconds)
    }

    /// True if the count is still below `target` once `seconds` have passed: for a check that
    /// it never gets there (`Flag.staysLowered`).
    public func staysBelowTarget(for seconds: Double) async -> Bool {
        await targetReached.staysLowered(for: seconds)
    }
}

extension OperationQueue {
    /// Adds `operations` without waiting. (`addOperations(_:waitUntilFinished:)` is
    /// unavailable from async code, even with `false`.)
    public func add(_ operations: [Operation]) {
        for operation in operations { addOperation(operation) }
    }
}

extension OperationQueue {
    /// Chapter 5's `run(_:)` with a deadline: true once every operation has finished, false
    /// after `seconds` — so an operation that never finishes fails the test instead of
    /// hanging the suite.
    public func runs(_ operations: [Operation], within seconds: Double = 10) async -> Bool {
        await completes(within: seconds) { await self.run(operations) }
    }

    /// The same for one operation.
    public func runs(_ operation: Operation, within seconds: Double = 10) async -> Bool {
        await runs([operation], within: seconds)
    }
}

/// `body`'s value if it returns within `seconds` (`Flag.wait`), nil if not. For reading a
/// getter that a wrong answer may leave waiting for a lock held by a deadlocked thread: the
/// read runs on a thread of its own, so the test fails cleanly instead of hanging.
public func read<Value: Sendable>(within seconds: Double = 2, _ body: @escaping @Sendable () -> Value) async -> Value? {
    let value = Locked<Value?>(nil)
    guard await blockingCall(within: seconds, { value.withLock { $0 = body() } }) else { return nil }
    return value.withLock { $0 }
}
