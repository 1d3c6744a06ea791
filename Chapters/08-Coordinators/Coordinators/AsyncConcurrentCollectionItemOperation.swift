/// Processes every item at once, in a task group.
public protocol AsyncConcurrentCollectionItemOperation: AsyncCollectionOperation, AsyncItemOperation {}

extension AsyncConcurrentCollectionItemOperation {
    public func perform(onCollection collection: [Item]) async -> [any Error] {
        await runConcurrently(count: collection.count) { try await perform(onItem: collection[$0]) }
    }
}
