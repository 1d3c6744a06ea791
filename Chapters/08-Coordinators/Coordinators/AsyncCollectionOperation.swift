/// Processes a whole collection: `CollectionOperation` with async/await.
public protocol AsyncCollectionOperation: Sendable {
    associatedtype Item: Sendable

    /// Processes `collection` and returns the errors, in the order of the items (or batches)
    /// that threw.
    func perform(onCollection collection: [Item]) async -> [any Error]
}
