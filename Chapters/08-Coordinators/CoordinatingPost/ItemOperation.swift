/// Performs an operation on one item, then completes with an optional error.
public protocol ItemOperation: OperationItemTypeProvider {
    typealias ItemCompletion = (Error?) -> Void

    func perform(onItem item: OperationItemType, completion: @escaping ItemCompletion)
}
