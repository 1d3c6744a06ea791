/// `AsyncConcurrentCoordinator`, re-expressed as a concurrent collection-item operation on
/// operations.
public struct AsyncConcurrentItemCoordinator: AsyncConcurrentCollectionItemOperation, AsyncCoordinator {
    public typealias Item = any AsyncCoordinatedOperation

    public init() {}

    public func perform(onItem item: any AsyncCoordinatedOperation) async throws {
        try await item.perform()
    }
}
