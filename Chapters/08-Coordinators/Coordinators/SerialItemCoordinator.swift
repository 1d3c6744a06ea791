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
