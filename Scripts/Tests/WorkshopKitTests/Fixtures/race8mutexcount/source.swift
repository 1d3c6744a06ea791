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

/// One slot per operation inside a `Mutex`; the count beside it, outside any lock.
private final class Collector: @unchecked Sendable {
    private let slots: Mutex<[(done: Bool, error: (any Error)?)]>
    private var remaining: Int

    init(count: Int) {
        slots = Mutex(Array(repeating: (false, nil), count: count))
        remaining = count
    }

    func complete(_ index: Int, with error: (any Error)?) -> [any Error]? {
        let filled = slots.withLock { slots in
            guard !slots[index].done else { return false }
            slots[index] = (true, error)
            return true
        }
        guard filled else { return nil }
        remaining -= 1
        return remaining == 0 ? slots.withLock { $0.compactMap(\.error) } : nil
    }
}
