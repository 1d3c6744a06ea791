import AsyncOperations
import Foundation
import ManualState
import TestSupport
import Testing

@Suite("Chapter 2 — managing the state by hand")
struct ManualStateOperationTests {
    @Test("the operation stays executing until its asynchronous work calls finish()")
    func executingUntilFinish() async {
        let held = HeldQueue()
        let log = EventLog()
        let started = Flag()
        let operation = DelayedPrintOperation(
            after: .seconds(0), on: held.queue, report: log.recorder(raising: started, at: "Starting"))
        let queue = OperationQueue()
        queue.addOperation(operation)

        #expect(await started.wait())
        #expect(operation.isExecuting && !operation.isFinished, "started, work held back: still executing")
        #expect(queue.operations.contains(operation), "the queue keeps it while its work is pending")
        held.release()
        #expect(await queueLearnsFinished(operation))
        #expect(log.events == ["Starting", "Executing"])
        #expect(operation.isFinished && !operation.isExecuting)
    }

    @Test("waitUntilFinished returns only after finish(): Starting, Executing, Operations finished")
    func waitReturnsAfterFinish() async {
        let held = HeldQueue()
        let log = EventLog()
        let started = Flag()
        let operation = DelayedPrintOperation(
            after: .seconds(0), on: held.queue, report: log.recorder(raising: started, at: "Starting"))
        let queue = OperationQueue()
        let returned = Flag()
        Thread {
            queue.addOperations([operation], waitUntilFinished: true)
            log.record("Operations finished")
            returned.raise()
        }.start()

        #expect(await started.wait())
        #expect(await returned.staysLowered(for: 0.2), "the wait may not return while the work is held back")
        held.release()
        #expect(await returned.wait())
        #expect(log.events == ["Starting", "Executing", "Operations finished"])
    }

    @Test("a dependency starts only after finish()")
    func dependentWaitsForFinish() async {
        let held = HeldQueue()
        let log = EventLog()
        let started = Flag()
        let upstream = DelayedPrintOperation(
            after: .seconds(0), on: held.queue, report: log.recorder(raising: started, at: "Starting"))
        let dependent = BlockOperation { log.record("dependent ran") }
        dependent.addDependency(upstream)
        OperationQueue().add([upstream, dependent])

        #expect(await started.wait())
        #expect(!dependent.isReady, "the queue may not start the dependent while upstream executes")
        held.release()
        #expect(await queueLearnsFinished(dependent))
        #expect(log.events == ["Starting", "Executing", "dependent ran"])
    }

    @Test("forgetting to announce isFinished leaves the dependent waiting, though the flag says finished (bounded)")
    func missingIsFinishedAnnouncement() async {
        let scene = await SilentFinishScene.afterTheQueueLooked()
        #expect(scene.workDone.isRaised, "the silent finish ran")
        #expect(scene.operation.isFinished, "its own flag says finished...")
        #expect(!scene.dependent.isReady, "...but the queue was never told, so the dependent is never ready")
        #expect(scene.queue.operations.contains(scene.operation), "and the queue still holds the operation")
        #expect(await queueDoesNotLearnFinished(scene.dependent, within: 0.2), "nothing moves")

        scene.operation.announceFinishedLate()  // the missing line releases everything
        #expect(await queueLearnsFinished(scene.dependent))
        #expect(await drained(scene.queue))
    }

    #if os(Linux)
        // Linux: waitUntilFinished() reads isFinished and, while it is false, sleeps until an
        // announcement of "isFinished" wakes it; addOperations(_:waitUntilFinished: true) calls
        // it for each operation. Darwin: how either wait learns "finished" is not documented
        // (not run on a Mac); that a silent flip wakes no waiter there either is inferred.
        @Test(
            """
            after a silent finish, a waitUntilFinished() that begins only then returns at once; \
            waitUntilAllOperationsAreFinished() hangs
            """)
        func waitsAfterSilentFinish() async {
            let scene = await SilentFinishScene.afterTheQueueLooked()
            let (operation, queue) = (scene.operation, scene.queue)
            #expect(await blockingCall(within: 30) { operation.waitUntilFinished() }, "returns: the flag is true")
            #expect(
                await keepsBlocking(for: 0.5) { queue.waitUntilAllOperationsAreFinished() },
                "the queue's wait does not return")
            operation.announceFinishedLate()  // also lets the blocked queue wait return
            #expect(await drained(queue))
        }

        @Test("a waitUntilFinished() already waiting when the flag flips silently never returns (bounded)")
        func waitingBeforeSilentFinishHangs() async {
            let scene = SilentFinishScene(released: .afterTheWaiterRead)
            scene.queue.add([scene.operation, scene.dependent])
            let returned = Flag()
            let operation = scene.operation
            Thread {
                ThreadMark.set(WatchedSilentFinish.waiterMark)
                operation.waitUntilFinished()
                returned.raise()
            }.start()

            #expect(await scene.workDone.wait(), "the silent finish ran, after the waiter had read false")
            #expect(operation.isFinished, "the flag says finished...")
            #expect(await returned.staysLowered(for: 0.5), "...but the waiter read false before, and nothing wakes it")
            operation.announceFinishedLate()  // the missing announcement wakes it
            #expect(await returned.wait())
            #expect(await drained(scene.queue))
        }

        @Test("the posts' addOperations(_:waitUntilFinished: true) around a silent finish never returns (bounded)")
        func addOperationsWaitingHangs() async {
            let scene = SilentFinishScene(released: .afterTheWaiterRead)
            let returned = Flag()
            let (operation, dependent, queue) = (scene.operation, scene.dependent, scene.queue)
            Thread {
                ThreadMark.set(WatchedSilentFinish.waiterMark)
                queue.addOperations([operation, dependent], waitUntilFinished: true)
                returned.raise()
            }.start()

            #expect(await scene.workDone.wait(), "the silent finish ran, after the call had begun to wait")
            #expect(operation.isFinished)
            #expect(await returned.staysLowered(for: 0.5), "addOperations never returns")
            operation.announceFinishedLate()
            #expect(await returned.wait())
        }
    #endif

    @Test("many operations finishing from other threads all finish exactly once")
    func concurrentFinishes() async {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 8
        let operationCount = 500
        let completions = Counter(target: operationCount)
        let operations = (0..<operationCount).map { _ in
            let operation = DelayedPrintOperation(after: .seconds(0)) { _ in }
            operation.completionBlock = completions.increment
            return operation
        }
        queue.add(operations)
        #expect(await drained(queue))
        #expect(operations.allSatisfy { $0.isFinished && !$0.isExecuting })
        // Completion blocks run on a global queue after the operation finished: await them.
        #expect(await completions.waitForTarget())
        #expect(completions.value == operationCount)
    }
}

/// A `SilentFinishOperation` with a dependent, and a queue, with its silent finish held until
/// the queue has started it and taken its one look at `isFinished` — and, for a waiter, until
/// the waiter has read `isFinished` and got false.
private struct SilentFinishScene {
    enum Release {
        /// Once the queue has looked.
        case afterTheQueueLooked
        /// Once the queue has looked and a thread marked `WatchedSilentFinish.waiterMark` read false.
        case afterTheWaiterRead
    }

    let operation: WatchedSilentFinish
    let dependent = BlockOperation {}
    let queue = OperationQueue()
    /// Raised once the silent finish has run.
    let workDone: Flag

    /// Builds the scene; the caller adds the operations to `queue`.
    ///
    /// The queue runs `start()` — and, on Linux, its look at `isFinished` right after — in one
    /// block on its underlying dispatch queue. That queue is serial here, so a block sent to it
    /// from `start()` runs only once that look is over. Without that, the silent finish could
    /// land before the look, and the queue would see it.
    init(released: Release) {
        let held = HeldQueue("silent-finish-work")
        let queuesThread = DispatchQueue(label: "the queue's thread")
        let workDone = Flag()
        let keysLeft = Locked(released == .afterTheWaiterRead ? 2 : 1)
        let arrive: @Sendable () -> Void = {
            if keysLeft.withLock({ keys in
                keys -= 1
                return keys == 0
            }) {
                held.release()
            }
        }
        self.workDone = workDone
        operation = WatchedSilentFinish(
            on: held.queue, started: { queuesThread.async(execute: arrive) }, workDone: workDone.raise,
            waiterReadFalse: arrive)
        dependent.addDependency(operation)
        queue.underlyingQueue = queuesThread
    }

    /// The scene with its operations added, once the silent finish has run.
    static func afterTheQueueLooked() async -> SilentFinishScene {
        let scene = SilentFinishScene(released: .afterTheQueueLooked)
        scene.queue.add([scene.operation, scene.dependent])
        _ = await scene.workDone.wait()
        return scene
    }
}

/// `SilentFinishOperation` that tells when a waiter has read `isFinished` and got false: the
/// first such read by a thread marked `waiterMark` calls `waiterReadFalse`.
private final class WatchedSilentFinish: SilentFinishOperation, @unchecked Sendable {
    // @unchecked Sendable: adds a Locked flag and a `let` to the superclass.
    static let waiterMark = "silent-finish-waiter"
    private let waiterReadFalse: @Sendable () -> Void
    private let told = Locked(false)

    init(
        on workQueue: DispatchQueue, started: @escaping @Sendable () -> Void,
        workDone: @escaping @Sendable () -> Void, waiterReadFalse: @escaping @Sendable () -> Void
    ) {
        self.waiterReadFalse = waiterReadFalse
        super.init(on: workQueue, started: started, workDone: workDone)
    }

    override var isFinished: Bool {
        let finished = super.isFinished
        if !finished, ThreadMark.isSet(Self.waiterMark) {
            let first = told.withLock { told in
                defer { told = true }
                return !told
            }
            if first { waiterReadFalse() }
        }
        return finished
    }
}
