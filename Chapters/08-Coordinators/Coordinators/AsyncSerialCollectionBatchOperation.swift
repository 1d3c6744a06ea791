/// Processes the batches one after the other.
public protocol AsyncSerialCollectionBatchOperation: AsyncCollectionOperation, AsyncBatchOperation {}

extension AsyncSerialCollectionBatchOperation {
    public func perform(onCollection collection: [Item]) async -> [any Error] {
        let size = batchSize  // read once
        guard let batches = split(collection, intoBatchesOf: size) else { return [InvalidBatchSize(batchSize: size)] }
        return await runSerially(count: batches.count) { try await perform(onBatch: batches[$0]) }
    }
}
