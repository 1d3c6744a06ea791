// swift-format-ignore-file
// STYLE: Mutex from Synchronization (Linux; macOS 15+) guarding a struct of slots; an enum per slot; guard for the empty list.
// WHY: the state (one slot per operation, the remaining count) is created before any operation starts; each callback
//      fills its own slot once under the mutex (a second call finds it done and returns nil), and the call that fills
//      the last slot takes the errors in operation order inside withLock and calls completion after it returns, on
//      its own thread. An empty list completes at once with [].
import Coordinators
import Foundation
import Synchronization

/// Starts every operation at once and completes when the last one has completed.
public struct SafeConcurrentCoordinator: Coordinator {
    public init() {}

    private enum Slot {
        case pending
        case done((any Error)?)
    }

    private struct Collected {
        var slots: [Slot]
        var remaining: Int
    }

    public func perform(
        operations: [any CoordinatedOperation], completion: @escaping @Sendable ([any Error]) -> Void
    ) {
        guard !operations.isEmpty else {
            completion([])
            return
        }
        let collected = Mutex(Collected(slots: Array(repeating: .pending, count: operations.count), remaining: operations.count))
        let shared = Shared(collected)
        for (index, operation) in operations.enumerated() {
            operation.perform { error in
                let finished: [any Error]? = shared.mutex.withLock { state in
                    guard case .pending = state.slots[index] else { return nil }
                    state.slots[index] = .done(error)
                    state.remaining -= 1
                    guard state.remaining == 0 else { return nil }
                    return state.slots.compactMap { slot in
                        if case .done(let error?) = slot { return error }
                        return nil
                    }
                }
                if let finished { completion(finished) }
            }
        }
    }

    /// A reference to the mutex, so that every callback shares the same one.
    private final class Shared: Sendable {
        let mutex: Mutex<Collected>
        init(_ mutex: consuming Mutex<Collected>) { self.mutex = mutex }
    }
}
