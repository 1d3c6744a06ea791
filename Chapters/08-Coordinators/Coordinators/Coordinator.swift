/// A piece of asynchronous work that a coordinator can run.
///
/// Step 1 of this chapter: an operation protocol and a coordinator protocol (`Coordinator`),
/// with callbacks. No OperationQueue, no framework: an operation is anything that can do its
/// work and say when it is done.
///
/// The popular version of this protocol is called `Operation`, which collides with
/// `Foundation.Operation` in every file that imports both modules (see this chapter's
/// README). The completion is `@Sendable` because it is called from whatever thread the work
/// ends on; under Swift 6 that is what lets an implementation call it from a dispatch queue.
public protocol CoordinatedOperation: Sendable {
    /// Does the work, then calls `completion` exactly once: with nil, or with the error the
    /// work failed with. The completion may be called on any thread, also synchronously.
    func perform(completion: @escaping @Sendable ((any Error)?) -> Void)
}

/// Runs a list of operations and reports every error they failed with.
public protocol Coordinator: Sendable {
    /// Performs `operations`, then calls `completion` exactly once with the errors of the
    /// operations that failed, in the order of `operations` (empty if none failed). For an
    /// empty list, `completion` is called with `[]` before this method returns; otherwise it
    /// is called on the thread that delivered the last operation's completion.
    func perform(
        operations: [any CoordinatedOperation], completion: @escaping @Sendable ([any Error]) -> Void)
}

/// Runs the operations one after the other: each starts when the previous one has completed,
/// whether it failed or not.
public struct SerialCoordinator: Coordinator {
    public init() {}

    public func perform(
        operations: [any CoordinatedOperation], completion: @escaping @Sendable ([any Error]) -> Void
    ) {
        SerialRun.start(steps: operations.count, completion: completion) { index, done in
            operations[index].perform(completion: done)
        }
    }
}

/// Starts every operation at once, in list order and before `perform` returns, and completes
/// when the last one has completed.
public struct ConcurrentCoordinator: Coordinator {
    public init() {}

    public func perform(
        operations: [any CoordinatedOperation], completion: @escaping @Sendable ([any Error]) -> Void
    ) {
        ConcurrentRun.start(steps: operations.count, completion: completion) { index, done in
            operations[index].perform(completion: done)
        }
    }
}
