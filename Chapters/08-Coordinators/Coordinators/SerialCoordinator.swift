/// Runs the operations one after the other: each starts when the previous one has completed,
/// whether it failed or not.
public struct SerialCoordinator: Coordinator {
    public init() {}

    public func perform(
        operations: [any CoordinatedOperation], completion: @escaping @Sendable ([any Error]) -> Void
    ) {
        SerialRun.start(steps: operations.count, completion: completion) { index, done in
            operations[index].perform(completion: done)
        }
    }
}
