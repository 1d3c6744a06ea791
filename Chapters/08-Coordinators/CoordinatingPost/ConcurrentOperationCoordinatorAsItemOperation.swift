/// The article's final `ConcurrentOperationCoordinator` ("Final improvements"), as it writes it:
/// a `ConcurrentCollectionItemOperation` on operations. It inherits that protocol's shared
/// array, and its race.
///
/// The article replaces its first two coordinators with these, under the same names. Both are
/// kept here, so the final ones add what sets them apart to the article's names (as every second
/// version of an article's type in this package does): each is the coordinator as an item
/// operation. That is the one change.
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
