// Exercise 8 — a concurrent coordinator that collects errors safely and completes once (about 20 minutes).
// Chapter 8: Chapters/08-Coordinators/README.md. Check it: Scripts/workshop check 8
import Coordinators
import Foundation
import Synchronization

/// Starts every operation at once and completes when the last one has completed.
///
/// `completion` is called exactly once, with the errors in the order of `operations` — also
/// for an empty list (at once, with `[]`). The operations' completions may arrive on many
/// threads at the same moment.
public struct SafeConcurrentCoordinator: Coordinator {
    public init() {}

    public func perform(
        operations: [any CoordinatedOperation], completion: @escaping @Sendable ([any Error]) -> Void
    ) {
        guard !operations.isEmpty else { return completion([]) }
        let collector = Collector(count: operations.count)
        for (index, operation) in operations.enumerated() {
            operation.perform { error in
                if let errors = collector.complete(index, with: error) { completion(errors) }
            }
        }
    }
}

/// One slot per operation, and the count of those still empty: all of it inside one `Mutex`.
private final class Collector: Sendable {
    private let state: Mutex<(slots: [(done: Bool, error: (any Error)?)], remaining: Int)>

    init(count: Int) {
        state = Mutex((Array(repeating: (false, nil), count: count), count))
    }

    /// Fills slot `index`; returns the errors, in order, to the call that filled the last one.
    func complete(_ index: Int, with error: (any Error)?) -> [any Error]? {
        state.withLock { state in
            guard !state.slots[index].done else { return nil }  // a second callback: counted once
            state.slots[index] = (true, error)
            state.remaining -= 1
            return state.remaining == 0 ? state.slots.compactMap(\.error) : nil
        }
    }
}
