/// Performs an operation on a batch of items, then completes with an optional error.
public protocol BatchOperation: OperationItemTypeProvider {
    typealias BatchCompletion = (Error?) -> Void

    func perform(onBatch batch: [OperationItemType], completion: @escaping BatchCompletion)
}
