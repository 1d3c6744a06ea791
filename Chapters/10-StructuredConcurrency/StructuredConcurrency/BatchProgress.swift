/// How far a batch of jobs has got: `completed` of `total`.
public struct BatchProgress: Sendable, Equatable, CustomStringConvertible {
    public let completed: Int
    public let total: Int

    public init(completed: Int, total: Int) {
        self.completed = completed
        self.total = total
    }

    public var description: String { "\(completed)/\(total)" }
}
