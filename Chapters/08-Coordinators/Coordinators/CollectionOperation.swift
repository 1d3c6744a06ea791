/// Processes a whole collection and reports every error.
///
/// Step 2 of this chapter: the same idea for any kind of item. An item operation knows how to
/// process one item, a batch operation how to process a batch of items; four protocols combine
/// either with "collection operation" (`SerialCollectionItemOperation`,
/// `ConcurrentCollectionItemOperation`, `SerialCollectionBatchOperation`,
/// `ConcurrentCollectionBatchOperation`), and their extensions implement
/// `perform(onCollection:)`, serially or concurrently. A conforming type writes only its
/// per-item or per-batch work.
///
/// Where this differs from the article's final code (CoordinatingPost): no
/// `OperationItemTypeProvider` (each protocol has its own `Item`, the article's
/// `OperationItemType`); `batchSize` belongs to `BatchOperation`, not to the two batch-collection
/// protocols; a batch size below 1 is an `InvalidBatchSize` error; completions are `@Sendable`,
/// without the article's typealiases; and the coordinators rewritten at the end are
/// `SerialItemCoordinator` and `ConcurrentItemCoordinator`, called with
/// `perform(operations:completion:)` (the article keeps the names and the call of its first ones).
public protocol CollectionOperation: Sendable {
    associatedtype Item: Sendable

    /// Processes `collection`, then calls `completion` exactly once with the errors, in the
    /// order of the items (or batches) that failed. An empty collection completes with `[]`
    /// before this method returns.
    func perform(onCollection collection: [Item], completion: @escaping @Sendable ([any Error]) -> Void)
}
