// The article's own protocols and concurrent coordinator ("Coordinating async operations",
// Daniel Saidi, 2019), written here with the same structure. Kept for the tests and the
// README; use `Coordinator` and `ConcurrentCoordinator` instead.

/// The article's operation protocol. The article calls it `Operation`, which collides with
/// `Foundation.Operation` (this chapter's README shows the errors); that name is the only
/// change. Its completion is a plain closure, not `@Sendable`, exactly as in the article.
public protocol OriginalOperation {
    typealias Completion = ((any Error)?) -> Void
    func perform(completion: @escaping Completion)
}

/// The article's coordinator protocol: performs operations, then calls back with one entry
/// per operation (nil for an operation that succeeded).
public protocol OriginalOperationCoordinator {
    typealias Completion = ([(any Error)?]) -> Void
    func perform(_ operations: [any OriginalOperation], completion: @escaping Completion)
}

/// WRONG ON PURPOSE: the article's parallel coordinator, a protocol whose extension does the
/// coordinating. Every completion appends to one
/// shared array, and the completion that makes `errors.count == operations.count` calls
/// back. No `DispatchGroup`, no lock, no queue.
///
/// It compiles in Swift 6 language mode as written: the completions are not `@Sendable`, so
/// capturing and mutating `errors` is allowed. It is also correct as long as every
/// completion arrives on one thread (for example the main queue). What goes wrong when
/// completions arrive on several threads at once — as they do for network requests
/// answered on a session's delegate queue — is shown in
/// `Tests/PlaygroundTests/Chapter8/Chapter8ArticleTests.swift` and `Chapter8RaceDemos.swift`:
/// - two `append`s at the same moment: a data race (ThreadSanitizer reports it); without
///   ThreadSanitizer an error can be lost, and then the count never reaches
///   `operations.count` and the completion is never called;
/// - two completions append, then both read `errors.count == operations.count`: the
///   completion is called twice;
/// - an operation that calls its completion twice fills the count early: the coordinator
///   calls back before the other operations are done, and their errors are lost;
/// - the errors come back in the order the completions arrived, not the operations' order.
public protocol OriginalParallelOperationCoordinator: OriginalOperationCoordinator {}

extension OriginalParallelOperationCoordinator {
    public func perform(_ operations: [any OriginalOperation], completion: @escaping Completion) {
        guard operations.count > 0 else { return completion([]) }
        var errors = [(any Error)?]()
        // swift-format-ignore: ReplaceForEachWithForLoop
        // (the article's own forEach, kept as written)
        operations.forEach {
            $0.perform { error in
                errors.append(error)  // the race: completions on two threads append at once
                let isComplete = errors.count == operations.count
                guard isComplete else { return }
                completion(errors)
            }
        }
    }
}

/// The article's `MyCoordinator`: a class that adopts the protocol and writes nothing else.
public final class OriginalConcurrentCoordinator: OriginalParallelOperationCoordinator {
    public init() {}
}
