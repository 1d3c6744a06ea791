/// Performs an operation on a whole collection, then completes with every error.
public protocol CollectionOperation: OperationItemTypeProvider {
    typealias CollectionCompletion = ([Error]) -> Void

    func perform(onCollection collection: [OperationItemType], completion: @escaping CollectionCompletion)
}
