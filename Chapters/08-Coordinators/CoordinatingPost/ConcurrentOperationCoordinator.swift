/// WRONG ON PURPOSE, as the article writes it: starts every operation at once and appends
/// each completion's error to one array; the completion that makes the count reach
/// `operations.count` calls back.
///
/// Right while every completion arrives on one thread. Completions that arrive on several
/// threads at once append at the same moment: a data race (ThreadSanitizer reports it), after
/// which an error can be lost (the count never reaches `operations.count`: no call back) or
/// two completions both see the last count (two call backs). An operation that calls back
/// twice fills the count early. The errors come in the order the completions arrived.
public class ConcurrentOperationCoordinator: OperationCoordinator {
    public init() {}

    public func perform(_ operations: [Operation], completion: @escaping OperationCoordinatorCompletion) {
        guard operations.count > 0 else { return completion([]) }
        var errors = [Error?]()
        // swift-format-ignore: ReplaceForEachWithForLoop
        // (the article's own forEach)
        operations.forEach {
            $0.perform { error in
                errors.append(error)  // the race: two completions on two threads append at once
                let isComplete = errors.count == operations.count
                guard isComplete else { return }
                completion(errors.compactMap { $0 })
            }
        }
    }
}
