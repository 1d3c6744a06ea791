/// Runs the operations one after the other.
public struct AsyncSerialCoordinator: AsyncCoordinator {
    public init() {}

    public func perform(operations: [any AsyncCoordinatedOperation]) async -> [any Error] {
        await runSerially(count: operations.count) { try await operations[$0].perform() }
    }
}
