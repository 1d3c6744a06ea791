/// As the article writes it: the collection cut into batches of `batchSize`, every batch
/// performed at once, with the same shared array as the item version.
public protocol ConcurrentCollectionBatchOperation: CollectionOperation, BatchOperation {
    var batchSize: Int { get }
}

extension ConcurrentCollectionBatchOperation {
    public func perform(onCollection collection: [OperationItemType], completion: @escaping CollectionCompletion) {
        guard collection.count > 0 else { return completion([]) }
        var errors = [Error?]()
        let batches = collection.batched(withBatchSize: batchSize)
        // swift-format-ignore: ReplaceForEachWithForLoop
        // (the article's own forEach)
        batches.forEach {
            perform(onBatch: $0) { error in
                errors.append(error)
                let isComplete = errors.count == batches.count
                guard isComplete else { return }
                completion(errors.compactMap { $0 })
            }
        }
    }
}
