/// Processes the batches one after the other.
public protocol SerialCollectionBatchOperation: CollectionOperation, BatchOperation {}

extension SerialCollectionBatchOperation {
    public func perform(onCollection collection: [Item], completion: @escaping @Sendable ([any Error]) -> Void) {
        let size = batchSize  // read once
        guard let batches = split(collection, intoBatchesOf: size) else {
            return completion([InvalidBatchSize(batchSize: size)])
        }
        SerialRun.start(steps: batches.count, completion: completion) { index, done in
            perform(onBatch: batches[index], completion: done)
        }
    }
}
