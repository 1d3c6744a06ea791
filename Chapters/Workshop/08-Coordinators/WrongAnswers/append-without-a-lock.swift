// Wrong answer: append each error as it comes, and count, as the article does
// Caught by: errorsInOrder, completionsAtTheSameMoment
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
        let collected = Collected(count: operations.count)
        for operation in operations {
            operation.perform { error in
                if let error { collected.errors.append(error) }
                collected.remaining -= 1
                if collected.remaining == 0 { completion(collected.errors) }
            }
        }
    }
}

/// The errors so far, and how many operations are still running.
private final class Collected: @unchecked Sendable {
    // @unchecked Sendable: the completions come one after the other.
    var errors: [any Error] = []
    var remaining: Int

    init(count: Int) { remaining = count }
}
