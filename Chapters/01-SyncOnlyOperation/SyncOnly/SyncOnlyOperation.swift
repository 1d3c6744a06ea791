import Dispatch
import Foundation

/// The operation most people write first: it says it is asynchronous and starts its
/// asynchronous work from `main()`.
///
/// It is broken. `Operation.start()` calls `main()` and, when `main()` returns, marks the
/// operation finished — `isAsynchronous` changes nothing about that when the operation
/// runs on a queue. The work scheduled from `main()` is still pending when the queue,
/// `waitUntilFinished` and every dependent already believe the operation is done.
public final class SyncOnlyOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: Operation is itself @unchecked Sendable, and this subclass adds
    // only `let` properties set in init, so it has no mutable state of its own to protect.
    private let delay: DispatchTimeInterval
    private let workQueue: DispatchQueue
    private let work: @Sendable () -> Void

    /// - Parameters:
    ///   - delay: how long the asynchronous work waits before it runs.
    ///   - workQueue: where the work runs (the articles use a global queue).
    ///   - work: the asynchronous part, for example printing "Executing".
    public init(
        after delay: DispatchTimeInterval,
        on workQueue: DispatchQueue = .global(),
        work: @escaping @Sendable () -> Void
    ) {
        self.delay = delay
        self.workQueue = workQueue
        self.work = work
    }

    public override var isAsynchronous: Bool { true }

    public override func main() {
        // Schedules the work and returns at once: for the queue, the operation ends here.
        workQueue.asyncAfter(deadline: .now() + delay, execute: work)
    }
}

/// Chapter 1's second example: a closure for a serial `OperationQueue` that does one step
/// synchronously and schedules a second one asynchronously, like a network call would.
///
/// The queue runs these closures one after the other, but it waits only for the
/// synchronous step: the asynchronous steps of consecutive closures are not kept in order.
public func syncThenAsyncStep(
    _ name: String,
    asyncAfter delay: DispatchTimeInterval,
    on workQueue: DispatchQueue = .global(),
    report: @escaping @Sendable (String) -> Void
) -> @Sendable () -> Void {
    {
        report("\(name) sync operation complete")
        // Queued at once and delayed on the work queue: a serial work queue then runs the
        // asynchronous steps in the order they were scheduled. (Two asyncAfter timers would
        // only probably fire in the order of their deadlines.)
        workQueue.async {
            Thread.sleep(forTimeInterval: delay.seconds)
            report("\(name) async operation complete")
        }
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
