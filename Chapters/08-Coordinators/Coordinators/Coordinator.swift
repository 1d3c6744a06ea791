/// Runs a list of operations and reports every error they failed with.
public protocol Coordinator: Sendable {
    /// Performs `operations`, then calls `completion` exactly once with the errors of the
    /// operations that failed, in the order of `operations` (empty if none failed). For an
    /// empty list, `completion` is called with `[]` before this method returns; otherwise it
    /// is called on the thread that delivered the last operation's completion.
    func perform(
        operations: [any CoordinatedOperation], completion: @escaping @Sendable ([any Error]) -> Void)
}
