import AsyncOperations
import Dispatch
import Foundation
import TestSupport

/// Runs a job on several new threads that all begin at the same instant.
///
/// Threads started one after another rarely overlap: the first may be done before the last
/// exists. Here each thread, once it exists, waits until all of them do; then they all spin until
/// one moment a little ahead and begin together, within microseconds of each other when the
/// machine gives them processors. On a busy machine it often does not, so a test that looks
/// for a lost update repeats rounds (`rounds(for:until:)`).
enum SimultaneousThreads {
    /// Runs `job(0)`, `job(1)`, … `job(count - 1)`, each on a thread of its own, begun together;
    /// returns once every job has returned. Blocks: call it from a synchronous function, off the
    /// cooperative pool (`blockingCall`).
    static func run(_ count: Int, _ job: @escaping @Sendable (Int) -> Void) {
        let arrived = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let start = StartTime()
        for index in 0..<count {
            Thread {
                arrived.signal()
                go.wait()
                start.spinUntilItComes()
                job(index)
                done.signal()
            }.start()
        }
        for _ in 0..<count { arrived.wait() }
        start.set(DispatchTime.now().uptimeNanoseconds + 300_000)  // 0.3 ms ahead
        for _ in 0..<count { go.signal() }
        for _ in 0..<count { done.wait() }
    }

    /// Calls `round` again and again until it returns a problem (returned) or `seconds` (times
    /// `boundStretch`) have passed (nil). For a race test: a lost update shows only in a round
    /// in which the threads really ran at the same time.
    static func rounds(for seconds: Double, until round: () -> String?) -> (problem: String?, rounds: Int) {
        let deadline = Date(timeIntervalSinceNow: seconds * boundStretch)
        var rounds = 0
        repeat {
            rounds += 1
            if let problem = round() { return (problem, rounds) }
        } while Date() < deadline
        return (nil, rounds)
    }
}

/// The moment the threads begin: set once, before they are let go.
private final class StartTime: Sendable {
    // A lock, not only the semaphore's order: ThreadSanitizer sees a pthread mutex, and the
    // spinning thread reads a copy of its own.
    private let nanoseconds = Locked<UInt64>(0)

    func set(_ moment: UInt64) { nanoseconds.withLock { $0 = moment } }

    func spinUntilItComes() {
        let moment = nanoseconds.withLock { $0 }
        while DispatchTime.now().uptimeNanoseconds < moment {}
    }
}
