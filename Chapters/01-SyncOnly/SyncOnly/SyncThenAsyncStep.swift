import Dispatch
import Foundation

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
