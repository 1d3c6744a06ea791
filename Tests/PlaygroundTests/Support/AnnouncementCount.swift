import AsyncOperations
import Foundation
import TestSupport

// How a test sees that a call announced "isFinished", on each platform.
// - Linux: there is no key-value observing; `didChangeValue(forKey: "isFinished")` itself reads
//   `isFinished` before it returns (swift-corelibs-foundation's Operation.swift). So reads
//   during a call of the callback, when no one else is looking (no dependents, the first call
//   has returned), mean that the call announced "isFinished". Verified here.
// - Darwin: when Foundation reads the getters is not documented, so reads prove nothing; a
//   key-value observer of `isFinished` is notified of each announcement instead (not verified
//   here: not yet run on a Mac).

/// On Darwin, a key-value observer of `isFinished` that counts its notifications; on Linux,
/// which has no key-value observing, nothing (the getters count instead).
final class AnnouncementObservation {
    #if os(Linux)
        init(of operation: Operation, countingIn counter: Counter) {}
        func end() {}
    #else
        private let observation: NSKeyValueObservation

        init(of operation: Operation, countingIn counter: Counter) {
            observation = operation.observe(\.isFinished) { _, _ in counter.increment() }
        }

        func end() { observation.invalidate() }
    #endif
}

/// A callback that calls `complete` twice in a row and keeps how much `counter` grew during
/// the second call.
func completingTwice(
    countingIn counter: Counter, secondCall: Locked<Int?>
) -> @Sendable (_ complete: @escaping @Sendable () -> Void) -> Void {
    { complete in
        complete()
        let before = counter.value
        complete()
        secondCall.withLock { $0 = counter.value - before }
    }
}
