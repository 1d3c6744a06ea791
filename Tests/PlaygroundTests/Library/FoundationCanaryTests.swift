import AsyncOperations
import Foundation
import TestSupport
import Testing

// Canaries: swift-corelibs-foundation's own bugs, reproduced with plain `BlockOperation`s.
//
// The package's operations are never worse than Foundation's own on the same path but one (a
// queued operation started by hand, which Foundation traps on and no subclass can detect:
// `HandStartTests`), and no better either where being better would take a workaround woven
// through the lesson: each bug
// below hits `AsyncOperation` as it hits `BlockOperation`, and chapter 3's README (or chapter
// 5's) explains it with the scene of its canary. A canary fails the day Foundation is fixed;
// its message says what to delete then. Crashes and hangs run in a child process.
//
// Darwin: how its Foundation behaves on these paths is not documented and was not run here
// (no Mac), so the canaries are Linux only.

#if os(macOS) || os(Linux)  // exit tests: macOS and Linux only
    #if os(Linux)
        @Suite(
            "Canaries: Foundation's own bugs on Linux, shown with BlockOperation", .timeLimit(.minutes(2)))
        struct FoundationCanaryTests {
            /// Foundation keeps the operations that depend on an operation as unretained pointers.
            /// A cancelled operation is ready at once, whatever its dependencies: it finishes, the
            /// program lets go of it, and the dependency follows the dangling pointer when it finishes.
            @Test(
                "a cancelled BlockOperation freed while its dependency runs: the dependency crashes when it finishes",
                .disabled(if: boundStretch > 1, crashesUnderASanitizer), .exitTest)
            func freedWhileItsDependencyRuns() async {
                await #expect(
                    processExitsWith: .failure,
                    """
                    Foundation no longer crashes on a freed cancelled dependent: delete chapter 3's README paragraph \
                    "Keep a cancelled operation until its dependencies have finished" and this canary
                    """
                ) {
                    CanaryScenes.freeCancelledDependents(rounds: 50)
                    exit(0)
                }
            }

            /// Apple's `addBarrierBlock(_:)`: operations added after a barrier block "don't start
            /// until the block has completed". A cancelled one, on Linux, finishes at once.
            @Test("a BlockOperation cancelled behind a pending barrier block finishes at once, before the barrier")
            func cancelledBehindABarrierFinishesAtOnce() async {
                let queue = OperationQueue()
                let blocker = HeldOperation()
                queue.addOperation(blocker)
                #expect(await blockingCall { blocker.running.wait() })
                queue.addBarrierBlock {}
                let operation = BlockOperation {}
                queue.addOperation(operation)
                operation.cancel()
                #expect(
                    await queueLearnsFinished(operation),
                    """
                    Linux now holds a cancelled operation behind a pending barrier block, as Apple documents: \
                    update chapter 3's README paragraph "Behind a pending barrier block" and this canary
                    """)
                blocker.release()  // the operation stays referenced until the barrier has run
                #expect(await drained(queue))
            }

            /// The barrier block holds the operations added after it unretained too.
            @Test(
                "a BlockOperation cancelled behind a pending barrier block and freed: the barrier crashes when it finishes",
                .disabled(if: boundStretch > 1, crashesUnderASanitizer), .exitTest)
            func freedBehindABarrier() async {
                await #expect(
                    processExitsWith: .failure,
                    """
                    Foundation no longer crashes on an operation freed behind a pending barrier: delete chapter 3's \
                    README sentence on it and this canary
                    """
                ) {
                    for _ in 0..<20 { CanaryScenes.freeBehindAPendingBarrier() }
                    exit(0)
                }
            }

            /// `addOperation` takes the queue's lock, makes the operation depend on the pending
            /// barrier, and — the operation being cancelled, so ready — asks the queue to look for
            /// work, which takes the same lock again.
            @Test(
                "a cancelled BlockOperation added to a queue with a pending barrier block: addOperation never returns",
                .exitTest)
            func cancelledAddedBehindABarrierDeadlocks() async {
                await #expect(
                    processExitsWith: .exitCode(watchdogFired),
                    """
                    Adding a cancelled operation behind a pending barrier no longer deadlocks: delete chapter 5's README \
                    sentence on it, run(_:)'s note, AddingCancelled.swift and this canary
                    """
                ) {
                    // The deadlock is at once; a short watchdog, since the parent holds a thread of its
                    // cooperative pool while this child runs.
                    startWatchdog(seconds: 2)
                    CanaryScenes.addCancelledBehindAPendingBarrier()
                    exit(0)
                }
            }

            /// `removeDependency(_:)` lowers the count of unfinished dependencies only for a
            /// dependency that has finished: removed while it runs, the operation waits for it for ever.
            @Test("removeDependency(d) while d runs: the BlockOperation never runs, even once d has finished")
            func removeDependencyWhileItRuns() async {
                let dependency = HeldOperation()
                let operation = BlockOperation {}
                operation.addDependency(dependency)
                let queue = OperationQueue()
                queue.addOperation(dependency)
                #expect(await blockingCall { dependency.running.wait() })
                queue.addOperation(operation)
                operation.removeDependency(dependency)
                dependency.release()
                #expect(await queueLearnsFinished(dependency))
                #expect(
                    await queueDoesNotLearnFinished(operation, within: 0.5),
                    """
                    removeDependency(_:) of a running dependency now lets the operation run: delete chapter 3's README \
                    sentence on it and this canary
                    """)
                operation.cancel()  // a cancel still lets it go (and the queue drain)
                #expect(await queueLearnsFinished(operation))
            }

            /// Apple: `queuePriority` orders the operations that are ready together. On a serial
            /// queue, Linux files an operation under its `queuePriority` when it is added, but
            /// looks for it under the priority its quality of service maps to when the priority
            /// changes: an operation with a `qualityOfService` other than `.default` is not found,
            /// and stays where it was. Darwin (read in Apple's documentation, not run): the raised
            /// operation runs first. Control: `ProgressSuspendPriorityTests.raisedPriorityRunsFirst`.
            @Test("on a serial queue, raising queuePriority does nothing for a BlockOperation with a qualityOfService")
            func raisedPriorityWithAQualityOfService() async {
                let log = EventLog()
                let queue = OperationQueue()
                queue.maxConcurrentOperationCount = 1
                queue.isSuspended = true  // both are added, and ready, before either can start
                let first = BlockOperation { log.record("first") }
                let raised = BlockOperation { log.record("raised") }
                raised.qualityOfService = .utility
                queue.add([first, raised])
                raised.queuePriority = .veryHigh
                queue.isSuspended = false
                #expect(await drained(queue))
                #expect(
                    log.events == ["first", "raised"],
                    """
                    a raised queuePriority now reaches an operation with a qualityOfService on a serial queue: delete \
                    chapter 9's README sentence on it, the line in AsyncOperations.docc/LinuxAndDarwin.md, and this canary
                    """)
            }

            /// Apple: a suspended queue starts nothing until it is resumed, and a barrier block runs
            /// once the operations added before it have finished. On an empty queue, Linux hands
            /// the barrier block straight to a dispatch queue of its own: it runs at once, the queue
            /// suspended or not. Darwin (inferred from Apple's documentation, not run): it waits
            /// for the resume. Control: `ProgressSuspendPriorityTests.barrierWaitsWhileSuspended`.
            @Test("a barrier block added to a suspended, empty queue runs at once")
            func barrierOnASuspendedEmptyQueue() async {
                let queue = OperationQueue()
                queue.isSuspended = true
                let ranWhileSuspended = Flag()
                queue.addBarrierBlock { if queue.isSuspended { ranWhileSuspended.raise() } }
                #expect(
                    await ranWhileSuspended.wait(seconds: 30),
                    """
                    a suspended, empty queue now holds a barrier block until it resumes: delete chapter 9's README \
                    sentence on it, the line in AsyncOperations.docc/LinuxAndDarwin.md, and this canary
                    """)
                queue.isSuspended = false
            }

            /// Apple: `underlyingQueue` is "the dispatch queue used to execute operations". The
            /// barrier block of an empty queue runs on the dispatch queue Linux makes for the queue
            /// when it has none, not on the one it was given. Darwin (inferred, not run): on the
            /// underlying queue. Control: `ProgressSuspendPriorityTests.barrierRunsOnTheUnderlyingQueue`.
            @Test("a barrier block added to an empty queue does not run on its underlyingQueue")
            func barrierOnAnEmptyQueueOffTheUnderlyingQueue() async {
                let key = DispatchSpecificKey<String>()
                let underlying = DispatchQueue(label: "canary.underlying")
                underlying.setSpecific(key: key, value: "the underlying queue")
                let queue = OperationQueue()
                queue.underlyingQueue = underlying
                let place = Locked<String?>(nil)
                let ran = Flag()
                queue.addBarrierBlock {
                    place.withLock { $0 = DispatchQueue.getSpecific(key: key) ?? "another queue" }
                    ran.raise()
                }
                #expect(await ran.wait(seconds: 30))
                #expect(
                    place.withLock { $0 } == "another queue",
                    """
                    the barrier block of an empty queue now runs on its underlyingQueue: delete chapter 9's README \
                    sentence on it, the line in AsyncOperations.docc/LinuxAndDarwin.md, and this canary
                    """)
                withExtendedLifetime(underlying) {}  // a queue does not keep its underlying queue (Linux)
            }

            /// A dependency added to an operation that has run is too late to hold it back, but it
            /// still holds the operation, unretained, until it finishes.
            @Test(
                "a dependency added to a BlockOperation that has run, which is then freed: the dependency crashes when it finishes",
                .disabled(if: boundStretch > 1, crashesUnderASanitizer), .exitTest)
            func lateDependencyOfAFinishedOperation() async {
                await #expect(
                    processExitsWith: .failure,
                    """
                    A late dependency no longer follows the freed operation: delete chapter 3's README sentence on \
                    dependencies added too late and this canary
                    """
                ) {
                    for _ in 0..<20 { CanaryScenes.freeAfterALateDependency() }
                    exit(0)
                }
            }

            /// `cancelAllOperations()` cancels the queue's barrier blocks too: a cancelled barrier
            /// never runs its block, finishes at once, and is freed while the operations before it
            /// still hold it — a crash, or at least a lost barrier block.
            @Test(
                "cancelAllOperations() with a pending barrier block: the block never runs, or the process crashes",
                .disabled(if: boundStretch > 1, crashesUnderASanitizer), .exitTest)
            func cancelAllWithABarrierPending() async {
                await #expect(
                    processExitsWith: .failure,
                    """
                    cancelAllOperations() now keeps barrier blocks: delete chapter 3's README sentence on it, \
                    drained()'s warning in TestSupport, and this canary
                    """
                ) {
                    startWatchdog(seconds: 30)
                    exit(CanaryScenes.cancelAllBehindABarrier())
                }
            }

            /// `addOperation` reads the operation's readiness, then stores it. A dependency that finishes
            /// between the two is missed: the queue later finds the operation ready but does not start
            /// it until it next looks for work. `runAlone` in chapter 5's `AwaitingOperations.swift`
            /// makes its observer's queue look once more; this canary forces the moment.
            @Test(
                "a BlockOperation whose dependency finishes while addOperation reads its readiness waits for a next look"
            )
            func staleReadinessAtEnqueue() async {
                let dependency = BlockOperation {}
                let observer = SlowReadingOperation {}
                observer.addDependency(dependency)
                observer.onNextRead { dependency.start() }  // finishes it between the read and the store
                let queue = OperationQueue()
                queue.addOperation(observer)
                #expect(dependency.isFinished)
                #expect(
                    await queueDoesNotLearnFinished(observer, within: 0.5),
                    """
                    addOperation no longer misses a dependency that finishes meanwhile: delete the line \
                    queue.isSuspended = false from runAlone (AwaitingOperations.swift) and this canary
                    """)
                queue.isSuspended = false  // the queue looks again: it starts the observer
                #expect(await queueLearnsFinished(observer))
            }
        }

        /// Why the canaries that crash are left to the plain run: under ThreadSanitizer its allocator
        /// hides the use after free; under either sanitizer a crashing child symbolizes for seconds,
        /// which the rest of the suite then misses.
        let crashesUnderASanitizer: Comment =
            "a crash under a sanitizer: hidden (ThreadSanitizer), or seconds of symbolizing"

        /// A `BlockOperation` that runs an action at its next read of `isReady`, after reading it.
        private final class SlowReadingOperation: BlockOperation, @unchecked Sendable {
            // @unchecked Sendable: `action` is a Locked; the rest is BlockOperation.
            private let action = Locked<(@Sendable () -> Void)?>(nil)

            func onNextRead(_ body: @escaping @Sendable () -> Void) { action.withLock { $0 = body } }

            override var isReady: Bool {
                let ready = super.isReady
                let body = action.withLock { action in
                    defer { action = nil }
                    return action
                }
                body?()
                return ready
            }
        }

        /// The canaries' scenes, synchronous: they block their thread (a child process's own).
        enum CanaryScenes {
            /// A dependency that runs until released and a cancelled dependent; the queue finishes
            /// the dependent, the program lets go of it, then the dependency finishes. `rounds` times.
            static func freeCancelledDependents(rounds: Int) {
                let queue = OperationQueue()
                for _ in 0..<rounds {
                    let release = DispatchSemaphore(value: 0)
                    let dependency = BlockOperation { release.wait() }
                    let dependentFinished = DispatchSemaphore(value: 0)
                    do {
                        let dependent = BlockOperation {}
                        dependent.addDependency(dependency)
                        dependent.completionBlock = { dependentFinished.signal() }
                        queue.addOperation(dependency)
                        queue.addOperation(dependent)
                        dependent.cancel()
                    }
                    dependentFinished.wait()
                    // The queue releases a finished operation just after its completion block was
                    // sent off: give it that moment, then let the dependency finish.
                    usleep(10_000)
                    release.signal()
                    dependency.waitUntilFinished()
                }
            }

            /// A queue whose first operation holds it, a barrier block behind it, then `operation`.
            static func queueWithAPendingBarrier() -> (queue: OperationQueue, release: DispatchSemaphore) {
                let queue = OperationQueue()
                let running = DispatchSemaphore(value: 0)
                let release = DispatchSemaphore(value: 0)
                queue.addOperation {
                    running.signal()
                    _ = release.wait(timeout: .now() + 30)
                }
                running.wait()
                queue.addBarrierBlock {}
                return (queue, release)
            }

            /// Cancels an operation behind a pending barrier block, lets go of it once it finished,
            /// then lets the barrier run.
            static func freeBehindAPendingBarrier() {
                let (queue, release) = queueWithAPendingBarrier()
                let finished = DispatchSemaphore(value: 0)
                do {
                    let operation = BlockOperation {}
                    operation.completionBlock = { finished.signal() }
                    queue.addOperation(operation)
                    operation.cancel()
                }
                finished.wait()
                usleep(10_000)  // the queue lets go of it just after its completion block was sent off
                release.signal()
                queue.waitUntilAllOperationsAreFinished()
            }

            /// Adds an operation that Foundation knows as cancelled behind a pending barrier block.
            static func addCancelledBehindAPendingBarrier() {
                let (queue, release) = queueWithAPendingBarrier()
                let operation = BlockOperation {}
                operation.cancel()
                queue.addOperation(operation)  // never returns on Linux
                release.signal()
            }

            /// Runs an operation, adds a dependency to it once it has finished, lets go of it, then
            /// runs the dependency.
            static func freeAfterALateDependency() {
                let dependency = BlockOperation {}
                do {
                    let operation = BlockOperation {}
                    let queue = OperationQueue()
                    queue.addOperation(operation)
                    queue.waitUntilAllOperationsAreFinished()
                    operation.addDependency(dependency)  // too late to hold it back
                }
                usleep(10_000)
                let other = OperationQueue()
                other.addOperation(dependency)
                other.waitUntilAllOperationsAreFinished()
            }

            /// 0 if the barrier block ran, 2 if it was lost (or the process crashes).
            static func cancelAllBehindABarrier() -> Int32 {
                let queue = OperationQueue()
                let running = DispatchSemaphore(value: 0)
                let release = DispatchSemaphore(value: 0)
                queue.addOperation {
                    running.signal()
                    _ = release.wait(timeout: .now() + 10)
                }
                running.wait()
                let barrierRan = DispatchSemaphore(value: 0)
                queue.addBarrierBlock { barrierRan.signal() }
                for _ in 0..<3 { queue.addOperation(BlockOperation {}) }
                queue.cancelAllOperations()
                release.signal()
                return barrierRan.wait(timeout: .now() + 0.5) == .success ? 0 : 2
            }
        }
    #else
        // Darwin: its Foundation's behaviour on these paths is not documented and was not run
        // here (no Mac); the package's operations follow whatever it does, as on Linux.
    #endif
#endif
