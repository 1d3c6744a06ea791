/// Processes a whole collection: `CollectionOperation` with async/await.
public protocol AsyncCollectionOperation: Sendable {
    associatedtype Item: Sendable

    /// Processes `collection` and returns the errors, in the order of the items (or batches)
    /// that threw.
    func perform(onCollection collection: [Item]) async -> [any Error]
}

/// Processes one item: `ItemOperation` with async/await.
public protocol AsyncItemOperation: Sendable {
    associatedtype Item: Sendable
    func perform(onItem item: Item) async throws
}

/// Processes a batch of up to `batchSize` items: `BatchOperation` with async/await.
public protocol AsyncBatchOperation: Sendable {
    associatedtype Item: Sendable
    /// Must be at least 1: a collection operation reports a smaller size as `InvalidBatchSize`.
    var batchSize: Int { get }
    func perform(onBatch batch: [Item]) async throws
}

/// Processes the items one after the other.
public protocol AsyncSerialCollectionItemOperation: AsyncCollectionOperation, AsyncItemOperation {}

extension AsyncSerialCollectionItemOperation {
    public func perform(onCollection collection: [Item]) async -> [any Error] {
        await runSerially(count: collection.count) { try await perform(onItem: collection[$0]) }
    }
}

/// Processes every item at once, in a task group.
public protocol AsyncConcurrentCollectionItemOperation: AsyncCollectionOperation, AsyncItemOperation {}

extension AsyncConcurrentCollectionItemOperation {
    public func perform(onCollection collection: [Item]) async -> [any Error] {
        await runConcurrently(count: collection.count) { try await perform(onItem: collection[$0]) }
    }
}

/// Processes the batches one after the other.
public protocol AsyncSerialCollectionBatchOperation: AsyncCollectionOperation, AsyncBatchOperation {}

extension AsyncSerialCollectionBatchOperation {
    public func perform(onCollection collection: [Item]) async -> [any Error] {
        let size = batchSize  // read once
        guard let batches = split(collection, intoBatchesOf: size) else { return [InvalidBatchSize(batchSize: size)] }
        return await runSerially(count: batches.count) { try await perform(onBatch: batches[$0]) }
    }
}

/// Processes every batch at once, in a task group.
public protocol AsyncConcurrentCollectionBatchOperation: AsyncCollectionOperation, AsyncBatchOperation {}

extension AsyncConcurrentCollectionBatchOperation {
    public func perform(onCollection collection: [Item]) async -> [any Error] {
        let size = batchSize  // read once
        guard let batches = split(collection, intoBatchesOf: size) else { return [InvalidBatchSize(batchSize: size)] }
        return await runConcurrently(count: batches.count) { try await perform(onBatch: batches[$0]) }
    }
}
