import Exercise3
import Foundation
import TestSupport
import Testing

@Suite("Exercise 3 — a cancelled operation finishes in start()", .enabled(if: workshopIsRunning))
struct Exercise3Tests {
    @Test("cancelled before it starts: no work, and the queue learns that it finished")
    func cancelledBeforeStart() async {
        let log = EventLog()
        let operation = ReportingOperation(report: log.record)
        operation.cancel()
        OperationQueue().addOperation(operation)
        let learned = await queueLearnsFinished(operation, within: 3)
        #expect(log.events.isEmpty, "a cancelled operation ran its work: start() must check isCancelled before main()")
        #expect(learned, "the cancelled operation never finished: start() must announce isFinished for it")
        #expect(operation.isFinished && !operation.isExecuting, "cancelled: finished = true, executing = false")
    }

    @Test("an operation that is not cancelled still runs its work")
    func notCancelledRuns() async {
        let log = EventLog()
        let operation = ReportingOperation(report: log.record)
        OperationQueue().addOperation(operation)
        #expect(await queueLearnsFinished(operation, within: 3), "the operation never finished")
        #expect(log.events == ["Executing"], "start() must still call main() when the operation is not cancelled")
    }
}
