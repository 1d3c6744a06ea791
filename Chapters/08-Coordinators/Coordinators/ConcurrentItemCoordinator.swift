/// `ConcurrentCoordinator`, re-expressed: a concurrent collection-item operation on operations
/// (step 3 of this chapter, like `SerialItemCoordinator`).
public struct ConcurrentItemCoordinator: ConcurrentCollectionItemOperation, Coordinator {
    public typealias Item = any CoordinatedOperation

    public init() {}

    public func perform(onItem item: any CoordinatedOperation, completion: @escaping @Sendable ((any Error)?) -> Void) {
        item.perform(completion: completion)
    }
}
