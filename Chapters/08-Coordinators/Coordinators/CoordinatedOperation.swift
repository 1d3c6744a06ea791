/// A piece of asynchronous work that a coordinator can run.
///
/// Step 1 of this chapter: an operation protocol and a coordinator protocol (`Coordinator`),
/// with callbacks. No OperationQueue, no framework: an operation is anything that can do its
/// work and say when it is done.
///
/// The popular version of this protocol is called `Operation`, which collides with
/// `Foundation.Operation` in every file that imports both modules (see this chapter's
/// README). The completion is `@Sendable` because it is called from whatever thread the work
/// ends on; under Swift 6 that is what lets an implementation call it from a dispatch queue.
public protocol CoordinatedOperation: Sendable {
    /// Does the work, then calls `completion` exactly once: with nil, or with the error the
    /// work failed with. The completion may be called on any thread, also synchronously.
    func perform(completion: @escaping @Sendable ((any Error)?) -> Void)
}
