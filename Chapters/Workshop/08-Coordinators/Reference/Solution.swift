// Exercise 8 — a concurrent coordinator that collects errors safely and completes once (about 20 minutes).
// Chapter 8: Chapters/08-Coordinators/README.md. Check it: Scripts/workshop check 8
import Coordinators
import Foundation

/// Starts every operation at once and completes when the last one has completed.
///
/// `completion` is called exactly once, with the errors in the order of `operations`: for an
/// empty list at once, with `[]`, before `perform` returns; otherwise by the callback that
/// completes the last operation, on its thread, before that callback returns. The operations'
/// completions may arrive on many threads at the same moment, twice, or while `perform` is
/// still starting the others.
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

/// One slot per operation; all of its state is behind `lock`.
private final class Collector: @unchecked Sendable {
    // @unchecked Sendable: `slots` and `remaining` are only touched under `lock`.
    private let lock = NSLock()
    private var slots: [(done: Bool, error: (any Error)?)]
    private var remaining: Int

    init(count: Int) {
        slots = Array(repeating: (false, nil), count: count)
        remaining = count
    }

    /// Fills slot `index`; returns the errors, in order, to the call that filled the last one.
    func complete(_ index: Int, with error: (any Error)?) -> [any Error]? {
        lock.withLock {
            guard !slots[index].done else { return nil }  // a second callback: counted once
            slots[index] = (true, error)
            remaining -= 1
            return remaining == 0 ? slots.compactMap(\.error) : nil
        }
    }
}
