import Dispatch

/// WRONG ON PURPOSE: the popular concurrent coordinator's pattern, which appends every error
/// to one shared array from the operations' completions. Do not use it; use
/// `ConcurrentCoordinator`.
///
/// The completions arrive on whatever threads the operations finish on, often several at
/// the same time, and `Array.append` is not thread-safe: ThreadSanitizer reports the race
/// (`Scripts/race-demos`), and without it errors get lost or the process crashes now and then.
///
/// Swift 6 refuses the pattern as written: once the completion is `@Sendable` (and it must
/// be, or no operation could call it from a dispatch queue), appending to a captured
/// `var errors` is "mutation of captured var 'errors' in concurrently-executing code". To
/// reproduce the bug, the array is hidden in `UnprotectedErrors`, which claims a thread
/// safety it does not have. The rest is the usual shape: a `DispatchGroup` entered once per
/// operation, and the completion called from a global queue when the group is empty.
public struct OriginalConcurrentCoordinator: Coordinator {
    public init() {}

    public func perform(
        operations: [any CoordinatedOperation], completion: @escaping @Sendable ([any Error]) -> Void
    ) {
        let group = DispatchGroup()
        let errors = UnprotectedErrors()
        for operation in operations {
            group.enter()
            operation.perform { error in
                if let error { errors.list.append(error) }  // the race: no lock
                group.leave()
            }
        }
        group.notify(queue: .global()) { completion(errors.list) }
    }
}

/// The original's shared `var errors`, in a box that Swift 6 accepts.
private final class UnprotectedErrors: @unchecked Sendable {
    // @unchecked Sendable: NOT safe, and that is the point. Nothing protects `list`; it is
    // the data race that OriginalConcurrentCoordinator demonstrates.
    var list: [any Error] = []
}
