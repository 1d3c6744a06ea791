/// As the article writes it: performs the first item, and from its completion the next one,
/// one call deeper each time (like the first `SerialOperationCoordinator`): items that
/// complete at once overflow the stack on a long collection.
public protocol SerialCollectionItemOperation: CollectionOperation, ItemOperation {}

extension SerialCollectionItemOperation {
    public func perform(onCollection collection: [OperationItemType], completion: @escaping CollectionCompletion) {
        perform(at: 0, in: collection, errors: [], completion: completion)
    }

    private func perform(
        at index: Int, in collection: [OperationItemType], errors: [Error], completion: @escaping CollectionCompletion
    ) {
        guard collection.count > index else { return completion(errors) }
        let object = collection[index]
        perform(onItem: object) { error in
            let errors = errors + [error].compactMap { $0 }
            self.perform(at: index + 1, in: collection, errors: errors, completion: completion)
        }
    }
}
