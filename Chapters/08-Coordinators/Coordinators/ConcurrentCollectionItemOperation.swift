/// Starts the processing of every item at once, in collection order.
public protocol ConcurrentCollectionItemOperation: CollectionOperation, ItemOperation {}

extension ConcurrentCollectionItemOperation {
    public func perform(onCollection collection: [Item], completion: @escaping @Sendable ([any Error]) -> Void) {
        ConcurrentRun.start(steps: collection.count, completion: completion) { index, done in
            perform(onItem: collection[index], completion: done)
        }
    }
}
