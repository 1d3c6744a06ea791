/// Runs steps 0..<count one after the other and returns their errors in step order.
func runSerially(count: Int, step: (Int) async throws -> Void) async -> [any Error] {
    var errors: [any Error] = []
    for index in 0..<count {
        do { try await step(index) } catch { errors.append(error) }
    }
    return errors
}

/// Runs steps 0..<count as child tasks of one task group and returns their errors in step
/// order. The child tasks start in no particular order; the errors are put back in order.
func runConcurrently(count: Int, step: @escaping @Sendable (Int) async throws -> Void) async -> [any Error] {
    await withTaskGroup(of: (Int, (any Error)?).self) { group in
        for index in 0..<count {
            group.addTask {
                do {
                    try await step(index)
                    return (index, nil)
                } catch {
                    return (index, error)
                }
            }
        }
        var errors = [(any Error)?](repeating: nil, count: count)
        for await (index, error) in group { errors[index] = error }
        return errors.compactMap { $0 }
    }
}
