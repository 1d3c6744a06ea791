/// Runs every operation at once, each as a child task of a task group.
public struct AsyncConcurrentCoordinator: AsyncCoordinator {
    public init() {}

    public func perform(operations: [any AsyncCoordinatedOperation]) async -> [any Error] {
        await runConcurrently(count: operations.count) { try await operations[$0].perform() }
    }
}
