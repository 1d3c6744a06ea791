/// As the article writes it: performs the first operation, and from its completion the next
/// one, and so on; the last completion calls back with the errors, in operation order.
///
/// Each operation is started from inside the previous one's completion: operations that
/// complete at once (the article's own `MyOperation`) nest one call deeper each, and a long
/// list overflows the stack. An operation that calls back twice starts the rest of the list
/// twice, and the coordinator calls back twice.
public class SerialOperationCoordinator: OperationCoordinator {
    public init() {}

    public func perform(_ operations: [Operation], completion: @escaping OperationCoordinatorCompletion) {
        performOperation(at: 0, in: operations, errors: [], completion: completion)
    }

    private func performOperation(
        at index: Int, in operations: [Operation], errors: [Error?],
        completion: @escaping OperationCoordinatorCompletion
    ) {
        guard operations.count > index else { return completion(errors.compactMap { $0 }) }
        let operation = operations[index]
        operation.perform { error in
            let errors = errors + [error]
            self.performOperation(at: index + 1, in: operations, errors: errors, completion: completion)
        }
    }
}
