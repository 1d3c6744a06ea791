/// Starts every operation at once, in list order and before `perform` returns, and completes
/// when the last one has completed.
public struct ConcurrentCoordinator: Coordinator {
    public init() {}

    public func perform(
        operations: [any CoordinatedOperation], completion: @escaping @Sendable ([any Error]) -> Void
    ) {
        ConcurrentRun.start(steps: operations.count, completion: completion) { index, done in
            operations[index].perform(completion: done)
        }
    }
}
