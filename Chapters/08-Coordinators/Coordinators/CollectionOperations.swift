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

/// Processes one item.
public protocol ItemOperation: Sendable {
    associatedtype Item: Sendable

    /// Processes `item`, then calls `completion` exactly once, with nil or the error.
    func perform(onItem item: Item, completion: @escaping @Sendable ((any Error)?) -> Void)
}

/// Processes a batch of up to `batchSize` items in one go.
public protocol BatchOperation: Sendable {
    associatedtype Item: Sendable

    /// How many items a batch holds (the last batch may hold fewer). Must be at least 1: a
    /// collection operation reports a smaller size as an `InvalidBatchSize` error.
    var batchSize: Int { get }

    /// Processes `batch`, then calls `completion` exactly once, with nil or the error.
    func perform(onBatch batch: [Item], completion: @escaping @Sendable ((any Error)?) -> Void)
}

/// Processes the items one after the other.
public protocol SerialCollectionItemOperation: CollectionOperation, ItemOperation {}

extension SerialCollectionItemOperation {
    public func perform(onCollection collection: [Item], completion: @escaping @Sendable ([any Error]) -> Void) {
        SerialRun.start(steps: collection.count, completion: completion) { index, done in
            perform(onItem: collection[index], completion: done)
        }
    }
}

/// Starts the processing of every item at once, in collection order.
public protocol ConcurrentCollectionItemOperation: CollectionOperation, ItemOperation {}

extension ConcurrentCollectionItemOperation {
    public func perform(onCollection collection: [Item], completion: @escaping @Sendable ([any Error]) -> Void) {
        ConcurrentRun.start(steps: collection.count, completion: completion) { index, done in
            perform(onItem: collection[index], completion: done)
        }
    }
}

/// Processes the batches one after the other.
public protocol SerialCollectionBatchOperation: CollectionOperation, BatchOperation {}

extension SerialCollectionBatchOperation {
    public func perform(onCollection collection: [Item], completion: @escaping @Sendable ([any Error]) -> Void) {
        let size = batchSize  // read once
        guard let batches = split(collection, intoBatchesOf: size) else {
            return completion([InvalidBatchSize(batchSize: size)])
        }
        SerialRun.start(steps: batches.count, completion: completion) { index, done in
            perform(onBatch: batches[index], completion: done)
        }
    }
}

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

/// The error a batch operation reports, alone and without processing anything, when its
/// `batchSize` is zero or negative.
public struct InvalidBatchSize: Error, Equatable, CustomStringConvertible {
    public let batchSize: Int

    public init(batchSize: Int) {
        self.batchSize = batchSize
    }

    public var description: String { "batch size must be at least 1, got \(batchSize)" }
}

/// `items` cut into batches of `size` items, the last one possibly shorter; nil if `size` is
/// less than 1. (`stride(by: 0)` would trap, and a negative stride would silently produce no
/// batch at all, so the size is checked first.)
func split<Item>(_ items: [Item], intoBatchesOf size: Int) -> [[Item]]? {
    guard size > 0 else { return nil }
    return stride(from: 0, to: items.count, by: size).map { start in
        Array(items[start..<min(start + size, items.count)])
    }
}
