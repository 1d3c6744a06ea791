import Exercise3
import Foundation
import TestSupport
import Testing

@Suite("Exercise 3 — a cancelled operation finishes in start()")
struct Exercise3Tests {
    @Test("cancelled before it starts: no work, and the queue learns that it finished")
    func cancelledBeforeStart() async {
        let log = EventLog()
        let operation = ReportingOperation(report: log.record)
        operation.cancel()
        OperationQueue().addOperation(operation)
        let learned = await queueLearnsFinished(operation, within: 2)
        #expect(log.events.isEmpty, "a cancelled operation ran its work: start() must check isCancelled before main()")
        #expect(learned, "the cancelled operation never finished: start() must announce isFinished for it")
        if learned {
            let state = await read { (finished: operation.isFinished, executing: operation.isExecuting) }
            #expect(
                state?.finished == true && state?.executing == false,
                "cancelled before it started: finished = true, and executing stays false")
        }
    }

    @Test("cancelled before it starts: start() announces \"isFinished\" with willChangeValue before didChangeValue")
    func announcesFinished() throws {
        let source = try #require(
            ExerciseSource("Exercise3/CancelAwareOperation.swift"),
            "the exercise file is missing")
        let start = try #require(source.body(of: "func start()"), "\(source.path) has no func start()")
        guard let cancelledBranch = start.range(of: "isCancelled") else {
            Issue.record("start() never looks at isCancelled: a cancelled operation must finish there without main()")
            return
        }
        let branch = start[cancelledBranch.upperBound...]
        if branch.contains("finish()") { return }  // finish() announces "isFinished" correctly
        for problem in ExerciseSource.announcementProblems(
            in: branch, keys: ["isFinished"], where: "start(), when cancelled,")
        {
            Issue.record(Comment(rawValue: problem))
        }
    }

    @Test("an operation that is not cancelled still runs its work")
    func notCancelledRuns() async {
        let log = EventLog()
        let operation = ReportingOperation(report: log.record)
        OperationQueue().addOperation(operation)
        #expect(await queueLearnsFinished(operation, within: 2), "the operation never finished")
        #expect(log.events == ["Executing"], "start() must still call main() when the operation is not cancelled")
    }
}
