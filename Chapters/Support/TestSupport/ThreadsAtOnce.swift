import AsyncOperations
import Dispatch
import Foundation

/// Runs each of `bodies` on a thread of its own, all released by one signal, and returns true
/// once every one has returned — false if one has not within `seconds` (times `boundStretch`),
/// so that a deadlock fails the test instead of hanging it.
///
/// Nothing orders the bodies but the code they call: two writes that this code leaves
/// unsynchronised are a data race that ThreadSanitizer reports, whichever body runs first.
/// (Whether they really overlap in time is up to the machine: a test that needs that cannot
/// rely on this.)
public func atOnce(within seconds: Double = 10, _ bodies: [@Sendable () -> Void]) async -> Bool {
    let go = DispatchSemaphore(value: 0)
    let returned = Counter(target: bodies.count)
    for body in bodies {
        Thread {
            go.wait()
            body()
            returned.increment()
        }.start()
    }
    for _ in bodies { go.signal() }
    return await returned.waitForTarget(seconds: seconds * boundStretch)
}

/// `body`'s value, computed on a thread of its own while this thread waits for it at most
/// `seconds` (times `boundStretch`); nil if it did not return by then (it waits for a lock that
/// this thread holds, say).
///
/// A blocking wait: for synchronous code such as a test subclass's getter, never for code on
/// Swift's cooperative threads.
public func valueFromAnotherThread<Value: Sendable>(
    within seconds: Double, _ body: @escaping @Sendable () -> Value
) -> Value? {
    let value = Locked<Value?>(nil)
    let returned = DispatchSemaphore(value: 0)
    Thread {
        let computed = body()
        value.withLock { $0 = computed }
        returned.signal()
    }.start()
    guard returned.wait(timeout: .now() + seconds * boundStretch) == .success else { return nil }
    return value.withLock { $0 }
}

/// How many times over a race test runs its rounds: 4 under ThreadSanitizer, else 1.
///
/// The detector reports a race only in a run in which nothing happened to order the two
/// accesses (a lock one thread took just after the other let it go). A wrong answer to
/// exercise 6 went unreported in 5 of 40 runs of its tests on a busy machine.
public var raceRounds: Int { Sanitizer.thread ? 4 : 1 }
