// The same protocols with async/await, side by side with the callback versions. An operation
// is an `async throws` function; a coordinator returns the errors instead of calling back.
// The serial run is a plain loop and the concurrent one a task group: no lock, no
// completion that could be called twice, and the compiler checks what crosses threads.

/// A piece of asynchronous work: `CoordinatedOperation` with async/await.
public protocol AsyncCoordinatedOperation: Sendable {
    /// Does the work; throws the error the work failed with.
    func perform() async throws
}

/// Runs a list of operations and returns every error they threw: `Coordinator` with
/// async/await.
public protocol AsyncCoordinator: Sendable {
    /// Performs `operations` and returns the errors of those that threw, in the order of
    /// `operations` (empty if none threw).
    func perform(operations: [any AsyncCoordinatedOperation]) async -> [any Error]
}

/// Runs the operations one after the other.
public struct AsyncSerialCoordinator: AsyncCoordinator {
    public init() {}

    public func perform(operations: [any AsyncCoordinatedOperation]) async -> [any Error] {
        await runSerially(count: operations.count) { try await operations[$0].perform() }
    }
}

/// Runs every operation at once, each as a child task of a task group.
public struct AsyncConcurrentCoordinator: AsyncCoordinator {
    public init() {}

    public func perform(operations: [any AsyncCoordinatedOperation]) async -> [any Error] {
        await runConcurrently(count: operations.count) { try await operations[$0].perform() }
    }
}

/// Processes one item: `ItemOperation` with async/await.
public protocol AsyncItemOperation: Sendable {
    associatedtype Item: Sendable
    func perform(onItem item: Item) async throws
}

/// Processes a batch of up to `batchSize` items: `BatchOperation` with async/await.
public protocol AsyncBatchOperation: Sendable {
    associatedtype Item: Sendable
    /// Must be at least 1: a collection operation reports a smaller size as `InvalidBatchSize`.
    var batchSize: Int { get }
    func perform(onBatch batch: [Item]) async throws
}

/// Processes a whole collection: `CollectionOperation` with async/await.
public protocol AsyncCollectionOperation: Sendable {
    associatedtype Item: Sendable

    /// Processes `collection` and returns the errors, in the order of the items (or batches)
    /// that threw.
    func perform(onCollection collection: [Item]) async -> [any Error]
}

/// Processes the items one after the other.
public protocol AsyncSerialCollectionItemOperation: AsyncCollectionOperation, AsyncItemOperation {}

extension AsyncSerialCollectionItemOperation {
    public func perform(onCollection collection: [Item]) async -> [any Error] {
        await runSerially(count: collection.count) { try await perform(onItem: collection[$0]) }
    }
}

/// Processes every item at once, in a task group.
public protocol AsyncConcurrentCollectionItemOperation: AsyncCollectionOperation, AsyncItemOperation {}

extension AsyncConcurrentCollectionItemOperation {
    public func perform(onCollection collection: [Item]) async -> [any Error] {
        await runConcurrently(count: collection.count) { try await perform(onItem: collection[$0]) }
    }
}

/// Processes the batches one after the other.
public protocol AsyncSerialCollectionBatchOperation: AsyncCollectionOperation, AsyncBatchOperation {}

extension AsyncSerialCollectionBatchOperation {
    public func perform(onCollection collection: [Item]) async -> [any Error] {
        let size = batchSize  // read once
        guard let batches = split(collection, intoBatchesOf: size) else { return [InvalidBatchSize(batchSize: size)] }
        return await runSerially(count: batches.count) { try await perform(onBatch: batches[$0]) }
    }
}

/// Processes every batch at once, in a task group.
public protocol AsyncConcurrentCollectionBatchOperation: AsyncCollectionOperation, AsyncBatchOperation {}

extension AsyncConcurrentCollectionBatchOperation {
    public func perform(onCollection collection: [Item]) async -> [any Error] {
        let size = batchSize  // read once
        guard let batches = split(collection, intoBatchesOf: size) else { return [InvalidBatchSize(batchSize: size)] }
        return await runConcurrently(count: batches.count) { try await perform(onBatch: batches[$0]) }
    }
}

/// `AsyncSerialCoordinator`, re-expressed as a serial collection-item operation on operations.
public struct AsyncSerialItemCoordinator: AsyncSerialCollectionItemOperation, AsyncCoordinator {
    public typealias Item = any AsyncCoordinatedOperation

    public init() {}

    public func perform(onItem item: any AsyncCoordinatedOperation) async throws {
        try await item.perform()
    }
}

/// `AsyncConcurrentCoordinator`, re-expressed as a concurrent collection-item operation on
/// operations.
public struct AsyncConcurrentItemCoordinator: AsyncConcurrentCollectionItemOperation, AsyncCoordinator {
    public typealias Item = any AsyncCoordinatedOperation

    public init() {}

    public func perform(onItem item: any AsyncCoordinatedOperation) async throws {
        try await item.perform()
    }
}

extension AsyncCoordinator where Self: AsyncCollectionOperation, Item == any AsyncCoordinatedOperation {
    public func perform(operations: [any AsyncCoordinatedOperation]) async -> [any Error] {
        await perform(onCollection: operations)
    }
}

/// Runs steps 0..<count one after the other and returns their errors in step order.
func runSerially(count: Int, step: (Int) async throws -> Void) async -> [any Error] {
    var errors: [any Error] = []
    for index in 0..<count {
        do { try await step(index) } catch { errors.append(error) }
    }
    return errors
}

/// Runs steps 0..<count as child tasks of one task group and returns their errors in step
/// order. The child tasks start in no particular order; the errors are put back in order.
func runConcurrently(count: Int, step: @escaping @Sendable (Int) async throws -> Void) async -> [any Error] {
    await withTaskGroup(of: (Int, (any Error)?).self) { group in
        for index in 0..<count {
            group.addTask {
                do {
                    try await step(index)
                    return (index, nil)
                } catch {
                    return (index, error)
                }
            }
        }
        var errors = [(any Error)?](repeating: nil, count: count)
        for await (index, error) in group { errors[index] = error }
        return errors.compactMap { $0 }
    }
}
