/// Processes a batch of up to `batchSize` items in one go.
public protocol BatchOperation: Sendable {
    associatedtype Item: Sendable

    /// How many items a batch holds (the last batch may hold fewer). Must be at least 1: a
    /// collection operation reports a smaller size as an `InvalidBatchSize` error.
    var batchSize: Int { get }

    /// Processes `batch`, then calls `completion` exactly once, with nil or the error.
    func perform(onBatch batch: [Item], completion: @escaping @Sendable ((any Error)?) -> Void)
}
