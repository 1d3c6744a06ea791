extension Coordinator where Self: CollectionOperation, Item == any CoordinatedOperation {
    /// A coordinator that is a collection operation on operations performs them as its collection.
    public func perform(
        operations: [any CoordinatedOperation], completion: @escaping @Sendable ([any Error]) -> Void
    ) {
        perform(onCollection: operations, completion: completion)
    }
}
