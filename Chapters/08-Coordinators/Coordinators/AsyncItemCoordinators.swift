/// `AsyncSerialCoordinator`, re-expressed as a serial collection-item operation on operations.
public struct AsyncSerialItemCoordinator: AsyncSerialCollectionItemOperation, AsyncCoordinator {
    public typealias Item = any AsyncCoordinatedOperation

    public init() {}

    public func perform(onItem item: any AsyncCoordinatedOperation) async throws {
        try await item.perform()
    }
}

/// `AsyncConcurrentCoordinator`, re-expressed as a concurrent collection-item operation on
/// operations.
public struct AsyncConcurrentItemCoordinator: AsyncConcurrentCollectionItemOperation, AsyncCoordinator {
    public typealias Item = any AsyncCoordinatedOperation

    public init() {}

    public func perform(onItem item: any AsyncCoordinatedOperation) async throws {
        try await item.perform()
    }
}

extension AsyncCoordinator where Self: AsyncCollectionOperation, Item == any AsyncCoordinatedOperation {
    public func perform(operations: [any AsyncCoordinatedOperation]) async -> [any Error] {
        await perform(onCollection: operations)
    }
}
