/// Processes one item.
public protocol ItemOperation: Sendable {
    associatedtype Item: Sendable

    /// Processes `item`, then calls `completion` exactly once, with nil or the error.
    func perform(onItem item: Item, completion: @escaping @Sendable ((any Error)?) -> Void)
}
