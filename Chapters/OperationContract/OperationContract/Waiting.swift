import Dispatch
import Foundation

// The kit's bounded waits. Every wait ends: an operation under check may deadlock, never
// finish, block a getter for ever, or hold every thread that Dispatch and Swift's cooperative
// pool have, and the check must still end with a verdict. So nothing here needs a thread that
// an operation can take: timeouts fire from a thread of the kit's own (`KitClock`), blocking
// waits run on threads the kit starts, and a call that may block (a getter behind a lock,
// `cancel()`, `waitUntilFinished()`) runs on a thread of its own, which the kit abandons if
// the call never returns.
//
// They are written once, here: the package's tests and the workshop's wait with them too,
// through TestSupport (`package` access: an app that adds the kit sees none of it).

/// A value read and written only under an `NSLock`.
///
/// The same as chapter 3's `Locked`, which the kit does not import: it depends on no chapter,
/// so that an app that copied the base into a module of its own named `AsyncOperations` can
/// still add the kit (two modules of one name do not build together).
final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched in `withLock`, under `lock`, and is Sendable.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }

    /// The value, read under the lock.
    var current: Value { withLock { $0 } }
}

/// The kit's clock: one thread of its own that fires the timeouts of every async wait.
///
/// Not `DispatchQueue.global().asyncAfter`: an operation that blocks the global queues' threads
/// keeps such a timer from firing until libdispatch adds a thread (about one a second). An
/// alarm only resumes a continuation; it never runs code that can block.
final class KitClock: @unchecked Sendable {
    // @unchecked Sendable: `alarms` and `nextID` are only touched under `condition`.
    static let shared = KitClock()

    private let condition = NSCondition()
    private var alarms: [Int: (deadline: Date, action: @Sendable () -> Void)] = [:]
    private var nextID = 0

    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "OperationContract.clock"
        thread.start()
    }

    /// Runs `action` on the clock's thread once `seconds` have passed, unless cancelled first.
    func after(_ seconds: Double, _ action: @escaping @Sendable () -> Void) -> Int {
        condition.lock()
        defer { condition.unlock() }
        nextID += 1
        alarms[nextID] = (Date(timeIntervalSinceNow: seconds), action)
        condition.signal()
        return nextID
    }

    /// Forgets an alarm that has not fired.
    func cancel(_ id: Int) {
        condition.lock()
        defer { condition.unlock() }
        alarms[id] = nil
    }

    private func run() {
        while true {
            condition.lock()
            var due: [@Sendable () -> Void] = []
            while due.isEmpty {
                let now = Date()
                let ready = alarms.filter { $0.value.deadline <= now }
                for id in ready.keys { alarms[id] = nil }
                due = ready.values.map(\.action)
                if !due.isEmpty { break }
                if let next = alarms.values.map(\.deadline).min() {
                    _ = condition.wait(until: next)
                } else {
                    condition.wait()
                }
            }
            condition.unlock()
            for action in due { action() }
        }
    }
}

/// Foundation's own operation, timed: how long a `BlockOperation` waits for its queue to start it.
enum FoundationProbe {
    /// Longer than this, the probe was held up (more under a sanitizer, which slows every thread).
    static let moment = 0.05 * ProcessSanitizer.stretch

    /// The probes' queue: a queue of their own, kept for good (a probe may outlive its wait).
    private static let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "OperationContract.probe"
        return queue
    }()

    /// Seconds from adding a `BlockOperation` to the start of its block; `limit` at most.
    static func lag(within limit: Double) -> Double {
        let started = Signal()
        let added = Date()
        queue.addOperation { started.raise() }
        _ = started.waitBlocking(seconds: limit)
        return Date().timeIntervalSince(added)
    }
}

/// A one-shot event that the kit waits for with a bound, blocking a thread of its own
/// (`waitBlocking(seconds:)`) or suspended (`wait(seconds:)`).
package final class Signal: @unchecked Sendable {
    // @unchecked Sendable: `raised`, `waiters` and `nextWaiter` are only touched under `condition`.
    private let condition = NSCondition()
    private var raised = false
    private var waiters: [Int: (continuation: CheckedContinuation<Bool, Never>, alarm: Int)] = [:]
    private var nextWaiter = 0

    package init() {}

    package var isRaised: Bool {
        condition.lock()
        defer { condition.unlock() }
        return raised
    }

    /// Raises the signal and wakes every waiter; raising it again does nothing.
    package func raise() {
        condition.lock()
        raised = true
        let woken = waiters.values
        waiters = [:]
        condition.broadcast()
        condition.unlock()
        for waiter in woken {
            KitClock.shared.cancel(waiter.alarm)
            waiter.continuation.resume(returning: true)
        }
    }

    /// True as soon as the signal is raised; false once `seconds` have passed without it.
    ///
    /// Suspends the caller; the timeout comes from the kit's own clock.
    package func wait(seconds: Double) async -> Bool {
        await withCheckedContinuation { continuation in register(continuation, seconds: seconds) }
    }

    /// The same, blocking the calling thread: for the kit's own threads, never for async code.
    func waitBlocking(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: max(0, seconds))
        condition.lock()
        defer { condition.unlock() }
        while !raised {
            if !condition.wait(until: deadline) { return raised }
        }
        return true
    }

    private func register(_ continuation: CheckedContinuation<Bool, Never>, seconds: Double) {
        condition.lock()
        if raised {
            condition.unlock()
            return continuation.resume(returning: true)
        }
        nextWaiter += 1
        let id = nextWaiter
        // Under the lock: the alarm cannot fire before the waiter is registered.
        let alarm = KitClock.shared.after(seconds) { [self] in timeOut(id) }
        waiters[id] = (continuation, alarm)
        condition.unlock()
    }

    private func timeOut(_ id: Int) {
        condition.lock()
        let waiter = waiters.removeValue(forKey: id)
        condition.unlock()
        waiter?.continuation.resume(returning: false)
    }
}

/// A weak reference that any thread may read.
final class WeakReference<Object: AnyObject>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private weak var stored: Object?

    init(_ object: Object? = nil) {
        stored = object
    }

    var object: Object? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Counts calls from any thread.
final class Tally: Sendable {
    private let count = Locked(0)
    let first = Signal()

    var value: Int { count.current }

    @Sendable func add() {
        count.withLock { $0 += 1 }
        first.raise()
    }
}

/// An order that is caused, not timed: each event the kit sees takes the next number.
enum Moment {
    private static let clock = Locked(0)

    /// The next moment; later events get larger numbers.
    static func next() -> Int {
        clock.withLock { moment in
            moment += 1
            return moment
        }
    }
}

/// Starts `body` on a new thread of the kit's own.
func onKitThread(_ name: String = "OperationContract", _ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.name = name
    thread.start()
}

/// Runs `body`, which may block, on a thread of its own.
///
/// True if it returned within `seconds`; if not, its thread stays where it is and the caller
/// goes on without it. The timeout comes from the kit's own clock.
package func returns(within seconds: Double, _ body: @escaping @Sendable () -> Void) async -> Bool {
    let returned = Signal()
    onKitThread {
        body()
        returned.raise()
    }
    return await returned.wait(seconds: seconds)
}

/// `body`'s value, computed on a thread of its own, or nil if it did not return within
/// `seconds` (a getter waiting for a lock that a stuck thread holds).
package func value<Value: Sendable>(within seconds: Double, _ body: @escaping @Sendable () -> Value) async -> Value? {
    let result = Locked<Value?>(nil)
    guard await returns(within: seconds, { result.withLock { $0 = body() } }) else { return nil }
    return result.current
}

/// The same bounded calls, blocking: for the kit's own threads (a check runs on them).
enum Bounded {
    /// Runs `body` on a thread of its own; true if it returned within `seconds`.
    static func returns(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
        let returned = Signal()
        onKitThread {
            body()
            returned.raise()
        }
        return returned.waitBlocking(seconds: seconds)
    }

    /// `body`'s value, computed on a thread of its own; nil if it did not return in time.
    static func value<Value: Sendable>(within seconds: Double, _ body: @escaping @Sendable () -> Value) -> Value? {
        let result = Locked<Value?>(nil)
        guard returns(within: seconds, { result.withLock { $0 = body() } }) else { return nil }
        return result.current
    }
}

/// Objects the kit never lets go of.
///
/// An operation that hung, or a queue that Foundation's bookkeeping no longer trusts (a
/// waiting operation marked finished), is kept here: freeing it could make Foundation follow a
/// dangling pointer later, and crash the process.
enum Quarantine {
    private static let kept = Locked<[any AnyObject & Sendable]>([])

    static func keep(_ objects: [any AnyObject & Sendable]) {
        kept.withLock { $0.append(contentsOf: objects) }
    }
}

/// Which sanitizer, if any, this process was built with: everything runs several times slower
/// under one, so every bound is longer there (`stretch`), and some checks cannot run under one.
///
/// Looked up on Linux only, where the runtimes define `__tsan_init` and `__asan_init`; on
/// Darwin both are false (the package has not been run under a sanitizer on a Mac).
package enum ProcessSanitizer {
    /// True under ThreadSanitizer.
    package static let thread = defines("__tsan_init")
    /// True under AddressSanitizer.
    package static let address = defines("__asan_init")

    /// How much longer every bound is: 4 under either sanitizer, else 1.
    ///
    /// A bound only decides when a broken operation fails, so a longer one costs a correct
    /// operation nothing.
    package static let stretch: Double = thread || address ? 4 : 1

    private static func defines(_ symbol: String) -> Bool {
        #if os(Linux)
            return dlsym(nil, symbol) != nil
        #else
            return false
        #endif
    }
}
