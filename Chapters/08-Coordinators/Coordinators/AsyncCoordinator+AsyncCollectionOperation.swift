extension AsyncCoordinator where Self: AsyncCollectionOperation, Item == any AsyncCoordinatedOperation {
    public func perform(operations: [any AsyncCoordinatedOperation]) async -> [any Error] {
        await perform(onCollection: operations)
    }
}
