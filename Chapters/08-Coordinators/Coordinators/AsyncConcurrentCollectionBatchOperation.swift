/// Processes every batch at once, in a task group.
public protocol AsyncConcurrentCollectionBatchOperation: AsyncCollectionOperation, AsyncBatchOperation {}

extension AsyncConcurrentCollectionBatchOperation {
    public func perform(onCollection collection: [Item]) async -> [any Error] {
        let size = batchSize  // read once
        guard let batches = split(collection, intoBatchesOf: size) else { return [InvalidBatchSize(batchSize: size)] }
        return await runConcurrently(count: batches.count) { try await perform(onBatch: batches[$0]) }
    }
}
