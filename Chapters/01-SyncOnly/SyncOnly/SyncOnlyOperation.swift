import Dispatch
import Foundation
import Recording

/// The operation most people write first, from the article "Asynchronous Operations with
/// Async/Await": it says it is asynchronous and starts its asynchronous work from `main()`.
///
/// It is broken. `Operation.start()` calls `main()` and, when `main()` returns, marks the
/// operation finished — `isAsynchronous` changes nothing about that when the operation
/// runs on a queue. The work scheduled from `main()` is still pending when the queue,
/// `waitUntilFinished` and every dependent already believe the operation is done.
///
/// Changes from the article:
/// - The name: the article calls it `AsyncOperation`, as does "Asynchronous operations for writing
///   concurrent solutions in Swift", which opens with the same operation; it is this chapter's
///   subject, named for what it is, where each post's later `AsyncOperation`s keep the name in
///   the post's namespace (`AsyncAwaitPost`, `ConcurrentSolutionsPost`).
/// - `public`: the chapter and the tests live in other modules (the package's layout).
/// - Testability: the delay, the queue and the work are parameters whose defaults are the
///   article's (3 s, a global queue, printing "Executing"), so that the chapter and its tests
///   can hold the work back.
/// - `@unchecked Sendable`, restated: Swift 6 warns on a subclass of `Operation` without it.
/// - The `Recorder` lines report to the chapter's pictures what happens (they do nothing
///   unless a run is recorded).
public class SyncOnlyOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable is safe: the subclass adds only `let` properties set in init.
    private let delay: DispatchTimeInterval
    private let workQueue: DispatchQueue
    private let work: @Sendable () -> Void

    /// - Parameters:
    ///   - delay: how long the asynchronous work waits before it runs.
    ///   - workQueue: where the work runs.
    ///   - work: the asynchronous part.
    public init(
        after delay: DispatchTimeInterval = .seconds(3),
        on workQueue: DispatchQueue = .global(),
        work: @escaping @Sendable () -> Void = { print("Executing") }
    ) {
        self.delay = delay
        self.workQueue = workQueue
        self.work = work
    }

    public override var isAsynchronous: Bool { return true }

    public override func main() {
        Recorder.current?.record(.executing, self)
        // Schedules the work and returns at once: for the queue, the operation ends here.
        workQueue.asyncAfter(deadline: .now() + delay, execute: Recorder.reportingWork(of: self, work))
        Recorder.current?.record(.mainReturned, self)
        Recorder.current?.record(.finished, self)  // Operation.start() marks it finished now
    }
}
