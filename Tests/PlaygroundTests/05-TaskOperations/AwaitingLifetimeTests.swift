import AsyncOperations
import Foundation
import TaskOperations
import TestSupport
import Testing

@Suite(
    "Chapter 5 — awaiting many operations, operations queued by someone else, and what an await leaves behind",
    .timeLimit(.minutes(1)))
struct AwaitingLifetimeTests {
    @Test("run(_:) of no operation returns at once; of 1,000, once all have finished")
    func runNoneAndMany() async {
        let queue = OperationQueue()
        #expect(await queue.runs([]))
        // More operations than one observer watches, in a chain, so that the last one to
        // finish is the last one of the list.
        let finished = Counter()
        let operations = (0..<1_000).map { _ in BlockOperation { finished.increment() } }
        for (earlier, later) in zip(operations, operations.dropFirst()) { later.addDependency(earlier) }
        #expect(await queue.runs(operations.reversed()))
        #expect(finished.value == 1_000)
        #expect(operations.allSatisfy { $0.isFinished })
    }

    @Test("untilFinished() of an operation that finished long ago returns at once")
    func untilFinishedAfterTheFact() async {
        let operation = BlockOperation {}
        #expect(await OperationQueue().runs(operation))
        #expect(await queueLearnsFinished(operation))
    }

    @Test("run(_:) of an operation you cancelled yourself: its queue starts it, and it finishes without its work")
    func runOfACancelledOperation() async {
        let block = BlockOperation { Issue.record("the cancelled BlockOperation ran its block") }
        block.cancel()
        #expect(await OperationQueue().runs(block))
        let task = TaskOperation { () -> Int in
            Issue.record("the cancelled TaskOperation ran its closure")
            return 1
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await OperationQueue().value(of: task) }
        #expect(block.isFinished && task.isFinished)
    }

    /// Before the fix, the observer handed a cancelled operation to a keeper that depended on
    /// its dependencies, so that Foundation's unretained dependents could not outlive it: a
    /// dependency that never runs kept it for ever (9 of 9 runs of this test failed so).
    @Test(
        "a cancelled await of an operation whose dependency never runs: the operation is freed, as no await would leave it",
        arguments: [false, true])
    func cancelledAwaitWithADependencyThatNeverRuns(watching: Bool) async {
        let reference = WeakReference()
        let neverRuns = BlockOperation {}
        do {
            let operation = BlockOperation {}
            operation.addDependency(neverRuns)
            reference.object = operation
            let queue = OperationQueue()
            if watching {
                // Queued and cancelled by its owner; someone else watches it.
                queue.addOperation(operation)
                let watching = Task { await operation.untilFinished() }
                operation.cancel()
                #expect(await completes { await watching.value })
            } else {
                let awaiting = Task { await queue.run(operation) }
                awaiting.cancel()  // before or after run(_:) added it: either way it is cancelled once added
                #expect(await completes { await awaiting.value })
            }
            #expect(operation.isFinished && operation.isCancelled)
        }
        #expect(await reference.isFreed(), "something keeps the cancelled operation for its dependency that never runs")
        withExtendedLifetime(neverRuns) {}  // it holds the freed operation unretained, and never runs
    }

    #if os(macOS) || os(Linux)
        /// An operation that someone else queued must be awaited with `untilFinished()`. Before the
        /// fix, `run(_:)` and `value(of:)` started such an operation by hand when it was already
        /// cancelled: Foundation printed "went isFinished=YES without being started by the queue
        /// it is in", and the queue that held it could crash later in its scheduler, or, when its
        /// own start was already on its way, trap with a message that blamed a start by hand
        /// nobody wrote. Now they add it, and Foundation traps at once, as it does for
        /// `addOperation(_:)` of any operation that is in a queue already.
        @Test(
            "value(of:) of an operation someone else queued (suspended queue), cancelled: Foundation's trap at once",
            .exitTest)
        func valueOfAnOperationQueuedElsewhere() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                startWatchdog(seconds: 30)
                let owner = OperationQueue()
                owner.isSuspended = true
                let operation = TaskOperation { 1 }
                owner.addOperation(operation)
                operation.cancel()
                _ = try? await OperationQueue().value(of: operation)
                exit(0)
            }
            let printed = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(printed.contains(foundationsEnqueueTrap), "\(printed)")
        }

        @Test(
            "run(_:) of an operation whose queue is starting it, cancelled: Foundation's trap at once, not a start by hand",
            .exitTest)
        func runOfAnOperationQueuedElsewhere() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                startWatchdog(seconds: 30)
                AwaitScenes.runOfAnOperationWhoseQueueIsStartingIt()
                exit(0)
            }
            let printed = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(printed.contains(foundationsEnqueueTrap), "\(printed)")
            #expect(!printed.contains("started by hand"), "\(printed)")
        }
    #endif
}

/// What Foundation says when an operation that is in a queue, executing or finished is added
/// to a queue: Linux's message (swift-corelibs-foundation's `OperationQueue._addOperations`);
/// on Darwin the trap's text is not documented, so only the trap is expected there.
private let foundationsEnqueueTrap: String = {
    #if os(Linux)
        "operations finished, executing or already in a queue cannot be enqueued"
    #else
        ""
    #endif
}()

#if os(macOS) || os(Linux)
    /// Scenes that block their thread (a child process's own, never the cooperative pool's).
    enum AwaitScenes {
        /// A queue whose dispatch is held has picked an operation (its start is on its way); the
        /// operation is cancelled, and another queue's `run(_:)` is handed it; then the held
        /// dispatch goes on.
        static func runOfAnOperationWhoseQueueIsStartingIt() {
            let dispatch = DispatchQueue(label: "held dispatch")
            dispatch.suspend()
            let owner = OperationQueue()
            owner.underlyingQueue = dispatch
            let operation = QuickOperation()
            owner.addOperation(operation)  // picked: its start waits in the held dispatch queue
            operation.cancel()
            let returned = DispatchSemaphore(value: 0)
            Task {
                await OperationQueue().run(operation)
                returned.signal()
            }
            returned.wait()
            dispatch.resume()
            owner.waitUntilAllOperationsAreFinished()
            usleep(100_000)  // the completion blocks, had any been sent off
        }
    }
#endif
