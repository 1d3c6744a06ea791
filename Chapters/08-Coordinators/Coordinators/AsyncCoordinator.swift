/// A piece of asynchronous work: `CoordinatedOperation` with async/await.
///
/// The chapter's protocols with async/await, side by side with the callback versions: an
/// operation is an `async throws` function, and a coordinator returns the errors instead of
/// calling back. The serial run is a plain loop (`runSerially`) and the concurrent one a task
/// group (`runConcurrently`): no lock, no completion that could be called twice, and the
/// compiler checks what crosses threads.
public protocol AsyncCoordinatedOperation: Sendable {
    /// Does the work; throws the error the work failed with.
    func perform() async throws
}

/// Runs a list of operations and returns every error they threw: `Coordinator` with
/// async/await.
public protocol AsyncCoordinator: Sendable {
    /// Performs `operations` and returns the errors of those that threw, in the order of
    /// `operations` (empty if none threw).
    func perform(operations: [any AsyncCoordinatedOperation]) async -> [any Error]
}

/// Runs the operations one after the other.
public struct AsyncSerialCoordinator: AsyncCoordinator {
    public init() {}

    public func perform(operations: [any AsyncCoordinatedOperation]) async -> [any Error] {
        await runSerially(count: operations.count) { try await operations[$0].perform() }
    }
}

/// Runs every operation at once, each as a child task of a task group.
public struct AsyncConcurrentCoordinator: AsyncCoordinator {
    public init() {}

    public func perform(operations: [any AsyncCoordinatedOperation]) async -> [any Error] {
        await runConcurrently(count: operations.count) { try await operations[$0].perform() }
    }
}
