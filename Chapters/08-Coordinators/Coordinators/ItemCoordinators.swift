/// `SerialCoordinator`, re-expressed: a serial collection-item operation on operations. Step 3
/// of this chapter: the coordinators again, as collection-item operations whose item is an
/// operation.
public struct SerialItemCoordinator: SerialCollectionItemOperation, Coordinator {
    public typealias Item = any CoordinatedOperation

    public init() {}

    public func perform(onItem item: any CoordinatedOperation, completion: @escaping @Sendable ((any Error)?) -> Void) {
        item.perform(completion: completion)
    }
}

/// `ConcurrentCoordinator`, re-expressed: a concurrent collection-item operation on operations
/// (step 3 of this chapter, like `SerialItemCoordinator`).
public struct ConcurrentItemCoordinator: ConcurrentCollectionItemOperation, Coordinator {
    public typealias Item = any CoordinatedOperation

    public init() {}

    public func perform(onItem item: any CoordinatedOperation, completion: @escaping @Sendable ((any Error)?) -> Void) {
        item.perform(completion: completion)
    }
}

extension Coordinator where Self: CollectionOperation, Item == any CoordinatedOperation {
    /// A coordinator that is a collection operation on operations performs them as its collection.
    public func perform(
        operations: [any CoordinatedOperation], completion: @escaping @Sendable ([any Error]) -> Void
    ) {
        perform(onCollection: operations, completion: completion)
    }
}
