import Dispatch
import Exercise2
import Foundation
import TestSupport
import Testing

@Suite("Exercise 2 — finish() announces its changes")
struct Exercise2Tests {
    @Test("finish() returns: it announces nothing while holding the lock")
    func finishReturns() async {
        let operation = FinishingOperation()
        OperationQueue().addOperation(operation)
        guard await operation.finishCalled.wait(seconds: 2) else {
            Issue.record("the queue never called main(), so finish() was never called: does start() still call main()?")
            return
        }
        #expect(
            await operation.finishReturned.wait(seconds: 2),
            "deadlock: finish() never returned. Is didChangeValue called while holding the lock? Foundation reads isFinished from inside it, and that getter waits for the same lock."
        )
    }

    @Test(
        "finish() announces both changes, \"isExecuting\" and \"isFinished\", with willChangeValue before didChangeValue"
    )
    func announcesBothKeys() throws {
        let source = try #require(
            ExerciseSource("Exercise2/AnnouncingOperation.swift"),
            "the exercise file is missing")
        let finish = try #require(source.body(of: "func finish()"), "\(source.path) has no func finish()")
        for problem in ExerciseSource.announcementProblems(
            in: finish, keys: ["isExecuting", "isFinished"], where: "finish()")
        {
            Issue.record(Comment(rawValue: problem))
        }
    }

    @Test("the queue learns that the operation finished, and its dependent starts after it")
    func queueLearnsFinished() async {
        let log = EventLog()
        let greeting = DelayedGreeting(on: DispatchQueue.global(), report: log.record)
        let dependent = BlockOperation { log.record("Dependent ran") }
        dependent.addDependency(greeting)
        OperationQueue().add([greeting, dependent])

        let learned = await TestSupport.queueLearnsFinished(dependent, within: 2)
        #expect(
            learned,
            "the queue never learned that the operation finished: finish() must announce isFinished, outside the lock")
        if learned {
            #expect(log.events == ["Executing", "Dependent ran"], "the dependent must start only after finish()")
        }
    }

    @Test("after finish(), the operation is finished and no longer executing")
    func stateAfterFinish() async {
        let greeting = DelayedGreeting(on: DispatchQueue.global()) { _ in }
        OperationQueue().addOperation(greeting)
        guard await TestSupport.queueLearnsFinished(greeting, within: 2) else {
            Issue.record("the queue never learned that the operation finished: finish() must announce isFinished")
            return
        }
        let state = await read { (finished: greeting.isFinished, executing: greeting.isExecuting) }
        #expect(state?.finished == true && state?.executing == false, "finish() must set finished and clear executing")
    }
}

/// The exercise's operation, telling the test when `finish()` was called and when it returned.
private final class FinishingOperation: AnnouncingOperation, @unchecked Sendable {
    // @unchecked Sendable: two thread-safe flags, on the learner's superclass.
    let finishCalled = Flag()
    let finishReturned = Flag()

    override func main() {
        DispatchQueue.global().async {
            self.finishCalled.raise()
            self.finish()
            self.finishReturned.raise()
        }
    }
}
