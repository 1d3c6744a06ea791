/// Processes one item: `ItemOperation` with async/await.
public protocol AsyncItemOperation: Sendable {
    associatedtype Item: Sendable
    func perform(onItem item: Item) async throws
}
