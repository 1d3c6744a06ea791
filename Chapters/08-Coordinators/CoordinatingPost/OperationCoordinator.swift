/// The article's coordinator: performs a list of operations, then completes with the errors
/// they failed with (empty if none failed).
public protocol OperationCoordinator {
    typealias OperationCoordinatorCompletion = ([Error]) -> Void

    func perform(_ operations: [Operation], completion: @escaping OperationCoordinatorCompletion)
}
