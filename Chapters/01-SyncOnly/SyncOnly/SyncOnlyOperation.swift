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

/// Chapter 1's second example, from the article "OperationQueue + Asynchronous Code:
/// Everything You Need to Know": a closure for a serial `OperationQueue` that schedules an
/// asynchronous step and then does a synchronous one, like code that calls a network API.
///
/// The queue runs these closures one after the other, but it waits only for the
/// synchronous step: the asynchronous steps of consecutive closures are not kept in order.
///
/// Changed from the article (chapter 1's README says why): the asynchronous step goes to
/// `workQueue`, a serial queue, and sleeps `delay` there before it reports, where the
/// article's closures hop to `DispatchQueue.main` with `asyncAfter`, 1 s and 1.5 s later. On
/// one serial queue the steps run in the order they were sent, so one delay serves both
/// closures. And `report` replaces `print`, for the tests.
public func syncThenAsyncStep(
    _ name: String,
    asyncAfter delay: DispatchTimeInterval,
    on workQueue: DispatchQueue,
    report: @escaping @Sendable (String) -> Void
) -> @Sendable () -> Void {
    {
        // Queued at once and delayed on the work queue: a serial work queue then runs the
        // asynchronous steps in the order they were scheduled, where two asyncAfter timers
        // would only probably fire in the order of their deadlines.
        workQueue.async {
            Thread.sleep(forTimeInterval: delay.seconds)
            report("\(name) async operation complete")
        }
        report("\(name) sync operation complete")
    }
}

extension DispatchTimeInterval {
    /// The interval in seconds; 0 for `.never`.
    var seconds: Double {
        switch self {
        case .seconds(let seconds): Double(seconds)
        case .milliseconds(let milliseconds): Double(milliseconds) / 1e3
        case .microseconds(let microseconds): Double(microseconds) / 1e6
        case .nanoseconds(let nanoseconds): Double(nanoseconds) / 1e9
        case .never: 0
        @unknown default: 0
        }
    }
}
