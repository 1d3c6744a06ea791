/// Runs a list of operations and returns every error they threw: `Coordinator` with
/// async/await.
public protocol AsyncCoordinator: Sendable {
    /// Performs `operations` and returns the errors of those that threw, in the order of
    /// `operations` (empty if none threw).
    func perform(operations: [any AsyncCoordinatedOperation]) async -> [any Error]
}
