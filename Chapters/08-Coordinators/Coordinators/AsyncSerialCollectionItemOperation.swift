/// Processes the items one after the other.
public protocol AsyncSerialCollectionItemOperation: AsyncCollectionOperation, AsyncItemOperation {}

extension AsyncSerialCollectionItemOperation {
    public func perform(onCollection collection: [Item]) async -> [any Error] {
        await runSerially(count: collection.count) { try await perform(onItem: collection[$0]) }
    }
}
