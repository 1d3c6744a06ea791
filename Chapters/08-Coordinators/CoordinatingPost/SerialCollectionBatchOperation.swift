/// As the article writes it: the batches one after the other, each from inside the previous
/// one's completion.
public protocol SerialCollectionBatchOperation: CollectionOperation, BatchOperation {
    var batchSize: Int { get }
}

extension SerialCollectionBatchOperation {
    public func perform(onCollection collection: [OperationItemType], completion: @escaping CollectionCompletion) {
        let batches = collection.batched(withBatchSize: batchSize)
        perform(at: 0, in: batches, errors: [], completion: completion)
    }

    private func perform(
        at index: Int, in batches: [[OperationItemType]], errors: [Error], completion: @escaping CollectionCompletion
    ) {
        guard batches.count > index else { return completion(errors) }
        let batch = batches[index]
        perform(onBatch: batch) { error in
            let errors = errors + [error].compactMap { $0 }
            self.perform(at: index + 1, in: batches, errors: errors, completion: completion)
        }
    }
}
