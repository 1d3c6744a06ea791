/// The article's final `SerialOperationCoordinator` ("Final improvements"), as it writes it: a
/// `SerialCollectionItemOperation` on operations, named as
/// `ConcurrentOperationCoordinatorAsItemOperation` says. It inherits that protocol's nesting:
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
