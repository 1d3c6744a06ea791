import Dispatch
import Exercise2
import Foundation
import TestSupport
import Testing

@Suite("Exercise 2 — finish() announces its changes", .enabled(if: workshopIsRunning))
struct Exercise2Tests {
    @Test("the queue learns that the operation finished, and its dependent starts after it")
    func queueLearnsFinished() async {
        let log = EventLog()
        let greeting = DelayedGreeting(on: DispatchQueue.global(), report: log.record)
        let dependent = BlockOperation { log.record("Dependent ran") }
        dependent.addDependency(greeting)
        OperationQueue().add([greeting, dependent])

        let learned = await TestSupport.queueLearnsFinished(dependent, within: 3)
        #expect(
            learned,
            "the queue never learned that the operation finished: did finish() announce isFinished with willChangeValue/didChangeValue(forKey:), outside the lock?"
        )
        #expect(log.events == ["Executing", "Dependent ran"], "the dependent must start only after finish()")
    }

    @Test("after finish(), the operation is finished and no longer executing")
    func stateAfterFinish() async {
        let greeting = DelayedGreeting(on: DispatchQueue.global()) { _ in }
        OperationQueue().addOperation(greeting)
        #expect(
            await TestSupport.queueLearnsFinished(greeting, within: 3),
            "the queue never learned that the operation finished: did finish() announce isFinished?")
        #expect(greeting.isFinished && !greeting.isExecuting, "finish() must set finished and clear executing")
    }
}
