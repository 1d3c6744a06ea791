/// Starts the processing of every batch at once, in collection order.
public protocol ConcurrentCollectionBatchOperation: CollectionOperation, BatchOperation {}

extension ConcurrentCollectionBatchOperation {
    public func perform(onCollection collection: [Item], completion: @escaping @Sendable ([any Error]) -> Void) {
        let size = batchSize  // read once
        guard let batches = split(collection, intoBatchesOf: size) else {
            return completion([InvalidBatchSize(batchSize: size)])
        }
        ConcurrentRun.start(steps: batches.count, completion: completion) { index, done in
            perform(onBatch: batches[index], completion: done)
        }
    }
}
