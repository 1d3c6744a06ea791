/// `AsyncSerialCoordinator`, re-expressed as a serial collection-item operation on operations.
public struct AsyncSerialItemCoordinator: AsyncSerialCollectionItemOperation, AsyncCoordinator {
    public typealias Item = any AsyncCoordinatedOperation

    public init() {}

    public func perform(onItem item: any AsyncCoordinatedOperation) async throws {
        try await item.perform()
    }
}
