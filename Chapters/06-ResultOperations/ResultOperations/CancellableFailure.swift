/// An error type that can say "the operation was cancelled". `AsyncResultOperation` needs it
/// so that a plain `cancel()` — which `OperationQueue.cancelAllOperations()` calls — still
/// ends the operation with a typed result.
public protocol CancellableFailure: Error {
    /// The failure of an operation cancelled with plain `cancel()`.
    static var cancelled: Self { get }
}
