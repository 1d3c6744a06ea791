import AsyncOperations
import Foundation

/// Watches a `ResultProducing` operation from a test's subclass of it: what its `result` was at
/// the moment it was first seen finished — when its queue and its dependents learn it, and read
/// it. `ResultProducing` promises that the result is there then.
///
/// The subclass forwards `isFinished`, and on a Mac `didChangeValue(forKey:)`:
///
///     override var isFinished: Bool { watch.isFinished(super.isFinished, of: self) }
///     #if !os(Linux)
///         override func didChangeValue(forKey key: String) {
///             watch.didChangeValue(forKey: key, of: self)
///             super.didChangeValue(forKey: key)
///         }
///     #endif
///
/// Linux's Foundation learns "finished" by reading `isFinished` inside
/// `didChangeValue(forKey: "isFinished")`, which a subclass cannot override there. A Mac's
/// key-value observing tells the queue from inside that call, which a subclass can override
/// there: the watch reads `isFinished` just before it (inferred from Apple's documentation of
/// key-value observing; not yet run on a Mac). Either way, a result recorded only after
/// "finished" was announced is missed.
public final class FinishWatch<Success: Sendable, Failure: Error>: Sendable {
    /// nil until the operation is first seen finished; then the result it had at that moment.
    private let seen = Locked<Result<Success, Failure>??>(nil)

    public init() {}

    /// The result when the operation was first seen finished; nil if it had none then, or was
    /// not seen finished yet.
    public var resultWhenFinished: Result<Success, Failure>? {
        seen.withLock { $0 ?? nil }
    }

    /// What went wrong, or nil if the operation was seen finished with its result there.
    public var problem: String? {
        switch seen.withLock({ $0 }) {
        case .none: "the operation was never seen finished"
        case .some(.none): "no result yet when the operation was first seen finished"
        case .some(.some): nil
        }
    }

    /// For the subclass's `isFinished`: returns `finished`, what the superclass said, and
    /// records the result the first time it is true.
    public func isFinished<Producer: ResultProducing>(_ finished: Bool, of operation: Producer) -> Bool
    where Producer.Success == Success, Producer.Failure == Failure {
        guard finished, seen.withLock({ $0 == nil }) else { return finished }
        let result = operation.result  // outside the lock: the operation's own lock may be held elsewhere
        seen.withLock { seen in
            if seen == nil { seen = .some(result) }
        }
        return finished
    }

    #if !os(Linux)
        /// For the subclass's `didChangeValue(forKey:)` on a Mac, before it calls `super`: reads
        /// `isFinished` (through the subclass's override, which records the result) just
        /// before the queue is told.
        public func didChangeValue<Producer: ResultProducing>(forKey key: String, of operation: Producer)
        where Producer.Success == Success, Producer.Failure == Failure {
            if key == "isFinished" { _ = operation.isFinished }
        }
    #endif
}
