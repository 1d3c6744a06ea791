/// A piece of asynchronous work: `CoordinatedOperation` with async/await.
///
/// The chapter's protocols with async/await, side by side with the callback versions: an
/// operation is an `async throws` function, and a coordinator returns the errors instead of
/// calling back. The serial run is a plain loop (`runSerially`) and the concurrent one a task
/// group (`runConcurrently`): no lock, no completion that could be called twice, and the
/// compiler checks what crosses threads.
public protocol AsyncCoordinatedOperation: Sendable {
    /// Does the work; throws the error the work failed with.
    func perform() async throws
}
