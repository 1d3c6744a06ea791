import Dispatch
import Exercise6
import Foundation
import TestSupport
import Testing

@Suite("Exercise 6 — a result on every path")
struct Exercise6Tests {
    @Test("a request that answers: its result")
    func answered() async {
        let operation = RequestOperation { done in DispatchQueue.global().async { done(.success("answer")) } }
        #expect(await completes(within: 2) { await OperationQueue().run(operation) }, "the operation never finished")
        #expect(operation.result == .success("answer"))
    }

    @Test("cancelled before it starts: the request is never sent, and the result is .cancelled")
    func cancelledBeforeStart() async {
        let sent = Flag()
        let operation = RequestOperation { _ in sent.raise() }
        operation.cancel()
        let finished = await completes(within: 2) { await OperationQueue().run(operation) }
        #expect(finished, "a cancelled operation must finish when its queue starts it")
        #expect(!sent.isRaised, "a cancelled operation sent its request")
        #expect(
            operation.result == .failure(.cancelled),
            "cancelled before it started, the operation ended without the .cancelled result: record it in cancelledBeforeStart()"
        )
    }

    @Test("cancelAllOperations() while the request runs (it never answers): the result is .cancelled")
    func queueCancelsWhileRunning() async {
        let sent = Flag()
        let queue = OperationQueue()
        let operation = RequestOperation { _ in sent.raise() }  // never calls back
        queue.addOperation(operation)
        #expect(await sent.wait(seconds: 5), "the request was never sent")
        queue.cancelAllOperations()
        let finished = await queueLearnsFinished(operation, within: 2)
        #expect(
            finished,
            "cancelled while running, the operation waited for ever for a request that never answers: cancel() must finish an executing operation with .failure(.cancelled)"
        )
        #expect(operation.result == .failure(.cancelled))
    }
}
