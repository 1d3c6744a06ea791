// The article's final coordinators ("Final improvements"): `ConcurrentOperationCoordinator` and
// `SerialOperationCoordinator` rewritten as collection-item operations whose item is an
// `Operation`, with its names, structure and behaviour.
//
// The article replaces its first two coordinators (Coordinating.swift) with these, under the
// same names. Both are kept here, so these live in a namespace of their own,
// `FinalImprovements` (the article's heading): the one change.

/// The article's final versions of its coordinators.
public enum FinalImprovements {
    /// As the article writes it: a `ConcurrentCollectionItemOperation` on operations. It
    /// inherits that protocol's shared array, and its race.
    public class ConcurrentOperationCoordinator: OperationCoordinator, ConcurrentCollectionItemOperation {
        public init() {}

        public typealias OperationItemType = Operation

        public func perform(_ operations: [Operation], completion: @escaping CollectionCompletion) {
            perform(onCollection: operations, completion: completion)
        }

        public func perform(onItem item: Operation, completion: @escaping ItemCompletion) {
            item.perform(completion: completion)
        }
    }

    /// As the article writes it: a `SerialCollectionItemOperation` on operations. It inherits
    /// that protocol's nesting: operations that complete at once overflow the stack.
    public class SerialOperationCoordinator: OperationCoordinator, SerialCollectionItemOperation {
        public init() {}

        public typealias OperationItemType = Operation

        public func perform(_ operations: [Operation], completion: @escaping CollectionCompletion) {
            perform(onCollection: operations, completion: completion)
        }

        public func perform(onItem item: Operation, completion: @escaping ItemCompletion) {
            item.perform(completion: completion)
        }
    }
}
