import AsyncOperations
import ChainedOperations
import CompletionOperations
import Foundation
import ResultOperations
import TaskOperations
import TestSupport
import Testing

// The package's operations on the paths of a real app's queue: behind a barrier block, with a
// dependency added after the operation was queued, and started by hand while a queue holds
// them — each compared with what Foundation's own `BlockOperation` does in the same place.
// Each scene runs in a child process with a watchdog: a crash or a deadlock fails its one test
// instead of the run. (Where Foundation itself fails, `FoundationCanaryTests` shows it.)

#if os(macOS) || os(Linux)
    @Suite("The library on a queue's other paths: barrier blocks, late dependencies, start() by hand")
    struct QueuePathsTests {
        /// Linux finishes a cancelled operation behind a pending barrier block at once
        /// (`FoundationCanaryTests.cancelledBehindABarrierFinishesAtOnce`), against Apple's
        /// `addBarrierBlock(_:)`; the package's operations do what Foundation's own do there.
        @Test(
            "cancelled behind a pending barrier block: finished when a BlockOperation is, for every kind of operation",
            .exitTest)
        func cancelledBehindABarrier() async {
            await #expect(processExitsWith: .success) {
                startWatchdog(seconds: 120)
                let kinds: [(String, () -> Operation)] = [
                    ("BlockOperation", { BlockOperation {} }),
                    ("CompletionOperation", { CompletionOperation { $0() } }),
                    ("TaskOperation", { TaskOperation { 1 } }), ("QuickOperation", { QuickOperation() }),
                ]
                let outcomes = kinds.map { name, make in "\(name): \(QueueScenes.cancelBehindAPendingBarrier(make))" }
                let expected = outcomes[0].dropFirst("BlockOperation".count)
                guard outcomes.allSatisfy({ $0.hasSuffix(expected) }) else {
                    print(outcomes.joined(separator: "\n"))
                    exit(2)
                }
                exit(0)
            }
        }

        /// From a task that is already cancelled, `withTaskCancellationHandler` runs its handler
        /// before the body. Had `run(_:)` cancelled the operation then, and added it after, Linux's
        /// Foundation would deadlock in `addOperation` behind the pending barrier block
        /// (`FoundationCanaryTests.cancelledAddedBehindABarrierDeadlocks`): it adds first.
        @Test("run(_:) and value(of:) from a task that is already cancelled, with a barrier pending, return", .exitTest)
        func alreadyCancelledAwaitWithABarrierPending() async {
            await #expect(processExitsWith: .success) {
                startWatchdog(seconds: 60)
                for _ in 0..<5 {
                    let queue = OperationQueue()
                    let blocker = QueueScenes.Blocker(in: queue)
                    _ = await blocker.running.wait()
                    queue.addBarrierBlock {}
                    let block = BlockOperation {}
                    let awaitingRun = Task {
                        withUnsafeCurrentTask { $0?.cancel() }
                        await queue.run(block)
                    }
                    // Cancelled only once added: a deadlock in addOperation never gets here.
                    while !block.isCancelled { try? await Task.sleep(nanoseconds: 1_000_000) }
                    blocker.release()
                    await awaitingRun.value

                    let secondBlocker = QueueScenes.Blocker(in: queue)
                    _ = await secondBlocker.running.wait()
                    queue.addBarrierBlock {}
                    let task = TaskOperation { 1 }
                    let awaitingValue = Task {
                        withUnsafeCurrentTask { $0?.cancel() }
                        do {
                            _ = try await queue.value(of: task)
                            return false
                        } catch {
                            return error is CancellationError
                        }
                    }
                    while !task.isCancelled { try? await Task.sleep(nanoseconds: 1_000_000) }
                    secondBlocker.release()
                    guard await awaitingValue.value else { exit(2) }  // value(of:) must throw the cancellation
                    guard await drained(queue) else { exit(3) }
                    withExtendedLifetime((block, task)) {}  // the barriers held them, unretained
                }
                exit(0)
            }
        }

        @Test("a dependency added after the queue took the operation: it runs, as a BlockOperation does", .exitTest)
        func lateDependency() async {
            await #expect(processExitsWith: .success) {
                startWatchdog(seconds: 60)
                for _ in 0..<5 {
                    QueueScenes.dependencyAddedWhileDispatching { BlockOperation {} }
                    QueueScenes.dependencyAddedWhileDispatching { CompletionOperation { $0() } }
                    QueueScenes.dependencyAddedWhileDispatching { TaskOperation { 1 } }
                }
                exit(0)
            }
        }

        @Test(
            "queue.addOperation(fetchTitle), then unfurl.then(fetchTitle): fetchTitle ends with a failure, no trap",
            .exitTest)
        func lateChain() async {
            await #expect(processExitsWith: .success) {
                startWatchdog(seconds: 60)
                for _ in 0..<5 {
                    let outcome = QueueScenes.chainLinkedAfterQueueing()
                    guard outcome == "failure(input(noInput))" else {
                        print("fetchTitle ended with", outcome)
                        exit(2)
                    }
                }
                exit(0)
            }
        }

        #if os(Linux)
            @Test("start() by hand while the queue is starting the operation traps, naming the mistake", .exitTest)
            func startByHandWhileTheQueueStartsIt() async {
                let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                    startWatchdog(seconds: 60)
                    QueueScenes.startByHandWhileDispatching()
                    exit(0)
                }
                let printed = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
                #expect(printed.contains("was started by hand while a queue held it"), "\(printed)")
            }
        #else
            // Darwin: the base tells this case by Foundation's own state of the operation
            // (`Operation.isFinished` and `isExecuting` as the base class keeps them), which
            // Linux keeps in step with the operation's notifications; whether Darwin's does is
            // not documented, so the check, and this test, are Linux only.
        #endif
    }

    /// The scenes, synchronous: they block their thread (the child process's, never the
    /// cooperative pool's) while Foundation's queues do the work.
    enum QueueScenes {
        /// An operation that holds a queue's thread until released, so that a barrier block
        /// added after it stays pending.
        final class Blocker: Sendable {
            let running = Flag()
            private let mayEnd = DispatchSemaphore(value: 0)

            init(in queue: OperationQueue) {
                queue.addOperation { [running, mayEnd] in
                    running.raise()
                    _ = mayEnd.wait(timeout: .now() + 30)
                }
            }

            func release() { mayEnd.signal() }
        }

        /// Queues an operation behind a barrier block that waits for a running one, and cancels
        /// it. Says whether it finished while the barrier was still pending, or only after. It
        /// stays referenced until the barrier has run: Foundation's barrier holds it unretained.
        static func cancelBehindAPendingBarrier(_ makeOperation: () -> Operation) -> String {
            let queue = OperationQueue()
            let blockerRuns = DispatchSemaphore(value: 0)
            let blockerMayEnd = DispatchSemaphore(value: 0)
            queue.addOperation {
                blockerRuns.signal()
                _ = blockerMayEnd.wait(timeout: .now() + 30)
            }
            blockerRuns.wait()
            queue.addBarrierBlock {}
            let operation = makeOperation()
            let finished = DispatchSemaphore(value: 0)
            operation.completionBlock = { finished.signal() }
            queue.addOperation(operation)
            operation.cancel()
            // A generous bound: a loaded machine may take its time, and only the outcome is compared.
            let whilePending = finished.wait(timeout: .now() + 60) == .success
            blockerMayEnd.signal()
            if !whilePending {
                precondition(finished.wait(timeout: .now() + 30) == .success, "the cancelled operation never finished")
            }
            queue.waitUntilAllOperationsAreFinished()
            precondition(operation.isFinished && operation.isCancelled)
            return whilePending ? "finished while the barrier was pending" : "finished once the barrier had run"
        }

        /// Queues an operation on a queue whose dispatch is held, so that the queue has picked it
        /// to start; adds a dependency that has not run; lets the queue go on: the operation
        /// must run. It stays referenced until the dependency has run: a dependency holds the
        /// operations that depend on it unretained, whenever it was added.
        static func dependencyAddedWhileDispatching(_ makeOperation: () -> Operation) {
            let dispatch = DispatchQueue(label: "held dispatch")
            dispatch.suspend()
            let queue = OperationQueue()
            queue.underlyingQueue = dispatch
            let dependency = BlockOperation {}
            let finished = DispatchSemaphore(value: 0)
            let operation = makeOperation()
            operation.completionBlock = { finished.signal() }
            queue.addOperation(operation)  // picked: its start is in the held dispatch queue
            operation.addDependency(dependency)  // too late to hold it back
            dispatch.resume()
            precondition(finished.wait(timeout: .now() + 30) == .success, "the operation never finished")
            queue.waitUntilAllOperationsAreFinished()
            let other = OperationQueue()
            other.addOperation(dependency)
            other.waitUntilAllOperationsAreFinished()
            withExtendedLifetime(operation) {}
        }

        /// Chapter 7's chain, linked after the downstream was queued: `then` adds the dependency
        /// while the queue is about to start `fetchTitle`. Returns how `fetchTitle` ended.
        static func chainLinkedAfterQueueing() -> String {
            let articleURL = URL(string: "https://www.example.com/article")!
            let web = LocalWeb(pages: [articleURL: "<title>Article</title>"])
            let dispatch = DispatchQueue(label: "held dispatch")
            dispatch.suspend()
            let queue = OperationQueue()
            queue.underlyingQueue = dispatch
            let findURL = TaskOperation { articleURL }
            let fetchTitle = FetchTitleOperation(web: web)
            queue.addOperation(fetchTitle)
            findURL.then(fetchTitle)
            dispatch.resume()
            fetchTitle.waitUntilFinished()
            let other = OperationQueue()
            other.addOperation(findURL)
            other.waitUntilAllOperationsAreFinished()
            switch fetchTitle.result {
            case .success(let title)?: return "success(\(title))"
            case .failure(let failure)?: return "failure(\(failure))"
            case nil: return "nil"
            }
        }

        /// Queues an operation on a queue whose dispatch is held, starts it by hand (it runs and
        /// finishes), then lets the queue go on: the queue starts it a second time.
        static func startByHandWhileDispatching() {
            let dispatch = DispatchQueue(label: "held dispatch")
            dispatch.suspend()
            let queue = OperationQueue()
            queue.underlyingQueue = dispatch
            let operation = CompletionOperation { $0() }
            queue.addOperation(operation)
            operation.start()
            dispatch.resume()
            queue.waitUntilAllOperationsAreFinished()
            usleep(100_000)  // the completion blocks, had any been sent off
        }
    }
#endif
