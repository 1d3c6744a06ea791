/// Processes the items one after the other.
public protocol SerialCollectionItemOperation: CollectionOperation, ItemOperation {}

extension SerialCollectionItemOperation {
    public func perform(onCollection collection: [Item], completion: @escaping @Sendable ([any Error]) -> Void) {
        SerialRun.start(steps: collection.count, completion: completion) { index, done in
            perform(onItem: collection[index], completion: done)
        }
    }
}
