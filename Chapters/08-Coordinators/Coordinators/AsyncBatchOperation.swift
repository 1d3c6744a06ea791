/// Processes a batch of up to `batchSize` items: `BatchOperation` with async/await.
public protocol AsyncBatchOperation: Sendable {
    associatedtype Item: Sendable
    /// Must be at least 1: a collection operation reports a smaller size as `InvalidBatchSize`.
    var batchSize: Int { get }
    func perform(onBatch batch: [Item]) async throws
}
