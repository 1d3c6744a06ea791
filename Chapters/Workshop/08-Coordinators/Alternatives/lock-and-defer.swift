// Alternative: lock() and defer { unlock() }, with the state in the coordinator's closure
// Exercise 8 — a concurrent coordinator that collects errors safely and completes once.
// Chapter 8: Chapters/08-Coordinators/README.md. Check it: Scripts/workshop check 8
import Coordinators
import Foundation

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
        let state = State(count: operations.count)
        for (index, operation) in operations.enumerated() {
            operation.perform { error in
                state.lock.lock()
                let errors = state.fill(index, with: error)
                state.lock.unlock()
                if let errors { completion(errors) }
            }
        }
    }
}

/// The slots and the count; `lock` must be held around `fill`.
private final class State: @unchecked Sendable {
    // @unchecked Sendable: `errors`, `done` and `remaining` are only touched while `lock` is held.
    let lock = NSLock()
    private var errors: [(any Error)?]
    private var done: [Bool]
    private var remaining: Int

    init(count: Int) {
        errors = Array(repeating: nil, count: count)
        done = Array(repeating: false, count: count)
        remaining = count
    }

    /// Fills slot `index`; the errors, in order, once the last slot is filled.
    func fill(_ index: Int, with error: (any Error)?) -> [any Error]? {
        guard !done[index] else { return nil }
        done[index] = true
        errors[index] = error
        remaining -= 1
        return remaining == 0 ? errors.compactMap { $0 } : nil
    }
}
