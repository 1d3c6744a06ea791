// The article's collection, item and batch operations ("Operating on a collection of items"),
// written here with its names, structure and behaviour: a protocol that provides the item type,
// the collection, item and batch operations built on it, and the four protocols whose
// extensions perform a collection concurrently or serially, per item or per batch. Its final
// coordinators, rewritten on them, are in FinalImprovements.swift.
//
// Changes from the article, none forced by Swift 6 (which compiles the rest as written: the
// completions are plain closures, so the concurrent extensions may capture and mutate `errors`):
// - Each extension's members carry the access (`public func`, `private func`) that the article
//   puts on the extension (`public extension`, `private extension`): the same access, written
//   the way the package's format rules ask.
// - `batched(withBatchSize:)`, which the article calls without showing it, is written here
//   (at the end of this file).

/// The article's provider of an item type: every collection, item and batch operation has one.
public protocol OperationItemTypeProvider {
    associatedtype OperationItemType
}

/// Performs an operation on a whole collection, then completes with every error.
public protocol CollectionOperation: OperationItemTypeProvider {
    typealias CollectionCompletion = ([Error]) -> Void

    func perform(onCollection collection: [OperationItemType], completion: @escaping CollectionCompletion)
}

/// Performs an operation on one item, then completes with an optional error.
public protocol ItemOperation: OperationItemTypeProvider {
    typealias ItemCompletion = (Error?) -> Void

    func perform(onItem item: OperationItemType, completion: @escaping ItemCompletion)
}

/// Performs an operation on a batch of items, then completes with an optional error.
public protocol BatchOperation: OperationItemTypeProvider {
    typealias BatchCompletion = (Error?) -> Void

    func perform(onBatch batch: [OperationItemType], completion: @escaping BatchCompletion)
}

/// WRONG ON PURPOSE, as the article writes it: performs every item at once, and appends each
/// completion's error to one array — the same shared array, with the same race, as the first
/// `ConcurrentOperationCoordinator` (Coordinating.swift).
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

extension Array {
    /// Not in the article, which calls it without showing it: the elements in consecutive
    /// batches of `batchSize`, the last one shorter if they do not divide evenly. Written the
    /// plain way: a `batchSize` of 0 traps (a stride of 0), a negative one gives no batch.
    func batched(withBatchSize batchSize: Int) -> [[Element]] {
        stride(from: 0, to: count, by: batchSize).map { start in
            Array(self[start..<Swift.min(start + batchSize, count)])
        }
    }
}
