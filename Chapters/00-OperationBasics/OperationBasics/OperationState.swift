import Foundation

/// The one word that describes where an operation is in its life.
///
/// An operation is `ready` once its dependencies have finished, `executing` while its work
/// runs, `finished` afterwards; `cancelled` is a flag beside those, set by `cancel()`.
public func state(of operation: Operation) -> String {
    if operation.isFinished { return operation.isCancelled ? "cancelled and finished" : "finished" }
    if operation.isExecuting { return "executing" }
    if operation.isCancelled { return "cancelled" }
    return operation.isReady ? "ready" : "waiting for its dependencies"
}
