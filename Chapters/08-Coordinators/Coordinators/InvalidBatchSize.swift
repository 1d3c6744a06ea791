/// The error a batch operation reports, alone and without processing anything, when its
/// `batchSize` is zero or negative.
public struct InvalidBatchSize: Error, Equatable, CustomStringConvertible {
    public let batchSize: Int

    public init(batchSize: Int) {
        self.batchSize = batchSize
    }

    public var description: String { "batch size must be at least 1, got \(batchSize)" }
}
