// The article's final coordinators ("Final improvements"): `ConcurrentOperationCoordinator` and
// `SerialOperationCoordinator` rewritten as collection-item operations whose item is an
// `Operation`, with its names, structure and behaviour.
//
// The article replaces its first two coordinators (Coordinating.swift) with these, under the
// same names. Both are kept here, so these add what sets them apart to the article's names (as
// every second version of an article's type in this package does): each is the coordinator as
// an item operation. That is the one change.

/// The article's final `ConcurrentOperationCoordinator`, as it writes it: a
/// `ConcurrentCollectionItemOperation` on operations. It inherits that protocol's shared array,
/// and its race.
public class ConcurrentOperationCoordinatorAsItemOperation: OperationCoordinator, ConcurrentCollectionItemOperation {
    public init() {}

    public typealias OperationItemType = Operation

    public func perform(_ operations: [Operation], completion: @escaping CollectionCompletion) {
        perform(onCollection: operations, completion: completion)
    }

    public func perform(onItem item: Operation, completion: @escaping ItemCompletion) {
        item.perform(completion: completion)
    }
}

/// The article's final `SerialOperationCoordinator`, as it writes it: a
/// `SerialCollectionItemOperation` on operations. It inherits that protocol's nesting:
/// operations that complete at once overflow the stack.
public class SerialOperationCoordinatorAsItemOperation: OperationCoordinator, SerialCollectionItemOperation {
    public init() {}

    public typealias OperationItemType = Operation

    public func perform(_ operations: [Operation], completion: @escaping CollectionCompletion) {
        perform(onCollection: operations, completion: completion)
    }

    public func perform(onItem item: Operation, completion: @escaping ItemCompletion) {
        item.perform(completion: completion)
    }
}
