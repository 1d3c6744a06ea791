/// WRONG ON PURPOSE, as the article writes it: performs every item at once, and appends each
/// completion's error to one array — the same shared array, with the same race, as the first
/// `ConcurrentOperationCoordinator`.
public protocol ConcurrentCollectionItemOperation: CollectionOperation, ItemOperation {}

extension ConcurrentCollectionItemOperation {
    public func perform(onCollection collection: [OperationItemType], completion: @escaping CollectionCompletion) {
        guard collection.count > 0 else { return completion([]) }
        var errors = [Error?]()
        // swift-format-ignore: ReplaceForEachWithForLoop
        // (the article's own forEach)
        collection.forEach {
            perform(onItem: $0) { error in
                errors.append(error)  // the race: two completions on two threads append at once
                let isComplete = errors.count == collection.count
                guard isComplete else { return }
                completion(errors.compactMap { $0 })
            }
        }
    }
}
