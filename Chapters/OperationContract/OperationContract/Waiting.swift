import Dispatch
import Foundation

// The kit's bounded waits. Every wait ends: an operation under check may deadlock, never
// finish, or block a getter for ever, and the check must still end with a verdict. Nothing
// here blocks a thread of Swift's cooperative pool: the kit awaits, and runs anything that
// may block (`waitUntilFinished()`, a getter behind a lock, `cancel()`) on a thread of its own,
// which it abandons if the call never returns.
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

/// A one-shot event that the kit awaits with a bound.
package final class Signal: Sendable {
    private struct State {
        var raised = false
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Locked(State())

    package init() {}

    package var isRaised: Bool { state.withLock { $0.raised } }

    /// Raises the signal and wakes every waiter; raising it again does nothing.
    package func raise() {
        let waiters = state.withLock { state in
            state.raised = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// True as soon as the signal is raised; false once `seconds` have passed without it.
    package func wait(seconds: Double) async -> Bool {
        await withCheckedContinuation { continuation in
            let id: Int? = state.withLock { state in
                if state.raised { return nil }
                state.nextWaiter += 1
                state.waiters[state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let id else { return continuation.resume(returning: true) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                self.state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
            }
        }
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

/// Runs `body`, which may block, on a thread of its own.
///
/// True if it returned within `seconds`; if not, its thread stays where it is and the check
/// goes on without it.
package func returns(within seconds: Double, _ body: @escaping @Sendable () -> Void) async -> Bool {
    let returned = Signal()
    let thread = Thread {
        body()
        returned.raise()
    }
    thread.start()
    return await returned.wait(seconds: seconds)
}

/// `body`'s value, computed on a thread of its own, or nil if it did not return within
/// `seconds` (a getter waiting for a lock that a stuck thread holds).
package func value<Value: Sendable>(within seconds: Double, _ body: @escaping @Sendable () -> Value) async -> Value? {
    let result = Locked<Value?>(nil)
    guard await returns(within: seconds, { result.withLock { $0 = body() } }) else { return nil }
    return result.current
}

/// Suspends the check for `seconds` (for "nothing more happens" checks only).
func pause(_ seconds: Double) async {
    try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
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
