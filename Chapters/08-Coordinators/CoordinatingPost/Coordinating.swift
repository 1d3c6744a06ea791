// The article's code ("Coordinating async operations", Jan 26, 2019), written here with its
// names, structure and behaviour: the `Operation` protocol, the `OperationCoordinator`
// protocol, and the two coordinators as the article first writes them. The chapter's README
// shows what goes wrong with them, each with a test; the package's own versions are in the
// `Coordinators` module.
//
// A module of its own, which imports nothing (the article's code needs only the standard
// library), because the protocol is named `Operation`, like `Foundation.Operation`: the article
// says to write `[MyLib].Operation` wherever both are visible, "or only import its library".
// The one change that makes: the article declares its coordinators `class` with the default
// (internal) access of an app's own code; here they are `public`, with a `public init()`, so
// that chapter 8 and the tests can use them from their modules. Swift 6 language mode compiles
// the rest as written: the completions are plain closures, not `@Sendable`, so the concurrent
// coordinator may capture and mutate `errors`.

/// The article's basic operation: anything that can be performed without parameters and
/// completes with an optional error.
public protocol Operation {
    typealias OperationCompletion = (Error?) -> Void

    func perform(completion: @escaping OperationCompletion)
}

/// The article's coordinator: performs a list of operations, then completes with the errors
/// they failed with (empty if none failed).
public protocol OperationCoordinator {
    typealias OperationCoordinatorCompletion = ([Error]) -> Void

    func perform(_ operations: [Operation], completion: @escaping OperationCoordinatorCompletion)
}

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
