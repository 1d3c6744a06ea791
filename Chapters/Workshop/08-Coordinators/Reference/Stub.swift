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
        // TODO: the operations start, but nothing is collected and `completion` is never
        // called. Keep one slot per operation behind a lock, count the completions, and call
        // `completion` once — outside the lock — when the last slot is filled. Mind the empty
        // list, and an operation that calls back twice.
        for operation in operations {
            operation.perform { _ in }
        }
    }
}
