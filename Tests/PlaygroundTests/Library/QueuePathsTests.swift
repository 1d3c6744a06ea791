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
// them. Each scene runs in a child process with a watchdog: a crash or a deadlock fails its
// one test instead of the run.

#if os(macOS) || os(Linux)
    @Suite("The library on a queue's other paths: barrier blocks, late dependencies, start() by hand")
    struct QueuePathsTests {
        @Test("a CompletionOperation cancelled behind a pending barrier block is kept until the barrier finished")
        func completionOperationBehindABarrier() async {
            await #expect(processExitsWith: .success) {
                startWatchdog(seconds: 60)
                for _ in 0..<10 { QueueScenes.cancelBehindAPendingBarrier { CompletionOperation { $0() } } }
                exit(0)
            }
        }

        @Test("a TaskOperation cancelled behind a pending barrier block is kept until the barrier finished")
        func taskOperationBehindABarrier() async {
            await #expect(processExitsWith: .success) {
                startWatchdog(seconds: 60)
                for _ in 0..<10 { QueueScenes.cancelBehindAPendingBarrier { TaskOperation { 1 } } }
                exit(0)
            }
        }

        @Test("run(_:) and value(of:) from a task that is already cancelled, with a barrier pending, return")
        func alreadyCancelledAwaitWithABarrierPending() async {
            await #expect(processExitsWith: .success) {
                startWatchdog(seconds: 60)
                for _ in 0..<5 {
                    let queue = OperationQueue()
                    let blocker = QueueScenes.Blocker(in: queue)
                    _ = await blocker.running.wait()
                    queue.addBarrierBlock {}
                    let awaiting = Task {
                        withUnsafeCurrentTask { $0?.cancel() }
                        await queue.run(BlockOperation {})
                        do {
                            _ = try await queue.value(of: TaskOperation { 1 })
                            return false
                        } catch {
                            return error is CancellationError
                        }
                    }
                    guard await awaiting.value else { exit(2) }  // value(of:) must throw the cancellation
                    blocker.release()
                    guard await drained(queue) else { exit(3) }
                }
                exit(0)
            }
        }

        /// A `BlockOperation` runs too; but nothing keeps it alive until the late dependency
        /// finished, so this scene's lifetime check does not hold for it.
        @Test("a dependency added after the queue took the operation: the operation runs, as a BlockOperation does")
        func lateDependency() async {
            await #expect(processExitsWith: .success) {
                startWatchdog(seconds: 60)
                for _ in 0..<5 {
                    QueueScenes.dependencyAddedWhileDispatching { CompletionOperation { $0() } }
                    QueueScenes.dependencyAddedWhileDispatching { TaskOperation { 1 } }
                }
                exit(0)
            }
        }

        @Test("a dependency added to an operation that already ran: it stays alive until that dependency finished")
        func dependencyAddedAfterItRan() async {
            await #expect(processExitsWith: .success) {
                startWatchdog(seconds: 60)
                for _ in 0..<5 {
                    QueueScenes.dependencyAddedAfterItRan { CompletionOperation { $0() } }
                    QueueScenes.dependencyAddedAfterItRan { TaskOperation { 1 } }
                }
                exit(0)
            }
        }

        @Test("queue.addOperation(fetchTitle), then unfurl.then(fetchTitle): fetchTitle ends with a failure, no trap")
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
            @Test("start() by hand while the queue is starting the operation traps, naming the mistake")
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

        /// Waits (blocking) until `condition` holds, at most `seconds`.
        static func eventually(within seconds: Double = 10, _ condition: () -> Bool) -> Bool {
            let deadline = DispatchTime.now() + seconds
            while !condition() {
                guard DispatchTime.now() < deadline else { return false }
                usleep(1_000)
            }
            return true
        }

        /// Queues an operation behind a barrier block that waits for a running one, cancels it
        /// and lets go of it; then lets the barrier finish. Without a keeper, the barrier's
        /// finish follows a dangling pointer to the freed operation.
        static func cancelBehindAPendingBarrier(_ makeOperation: () -> Operation) {
            let queue = OperationQueue()
            let blockerRuns = DispatchSemaphore(value: 0)
            let blockerMayEnd = DispatchSemaphore(value: 0)
            queue.addOperation {
                blockerRuns.signal()
                _ = blockerMayEnd.wait(timeout: .now() + 30)
            }
            blockerRuns.wait()
            queue.addBarrierBlock {}
            let finished = DispatchSemaphore(value: 0)
            weak var weakOperation: Operation?
            do {
                let operation = makeOperation()
                weakOperation = operation
                operation.completionBlock = { finished.signal() }
                queue.addOperation(operation)
                operation.cancel()  // ready at once: it finishes while the barrier still waits
            }
            precondition(finished.wait(timeout: .now() + 30) == .success, "the cancelled operation never finished")
            // The queue lets go of a finished operation just after sending its completion block off.
            usleep(20_000)
            precondition(weakOperation != nil, "freed while the barrier block, which holds it unretained, was pending")
            blockerMayEnd.signal()
            queue.waitUntilAllOperationsAreFinished()
            precondition(eventually { weakOperation == nil }, "never freed")
        }

        /// Queues an operation on a queue whose dispatch is held, so that the queue has picked it
        /// to start; adds a dependency that has not run; lets the queue go on. Then runs the
        /// dependency, which holds the operation unretained until it finishes.
        static func dependencyAddedWhileDispatching(_ makeOperation: () -> Operation) {
            let dispatch = DispatchQueue(label: "held dispatch")
            dispatch.suspend()
            let queue = OperationQueue()
            queue.underlyingQueue = dispatch
            let dependency = BlockOperation {}
            let finished = DispatchSemaphore(value: 0)
            weak var weakOperation: Operation?
            do {
                let operation = makeOperation()
                weakOperation = operation
                operation.completionBlock = { finished.signal() }
                queue.addOperation(operation)  // picked: its start is in the held dispatch queue
                operation.addDependency(dependency)  // too late to hold it back
            }
            dispatch.resume()
            precondition(finished.wait(timeout: .now() + 30) == .success, "the operation never finished")
            usleep(20_000)
            precondition(weakOperation != nil, "freed while its dependency, which holds it unretained, had not run")
            let other = OperationQueue()
            other.addOperation(dependency)
            other.waitUntilAllOperationsAreFinished()
            queue.waitUntilAllOperationsAreFinished()
            precondition(eventually { weakOperation == nil }, "never freed")
        }

        /// Runs an operation to its end, then adds a dependency that has not run, and lets go of
        /// the operation; then runs the dependency, which holds the operation unretained.
        static func dependencyAddedAfterItRan(_ makeOperation: () -> Operation) {
            let dependency = BlockOperation {}
            weak var weakOperation: Operation?
            do {
                let operation = makeOperation()
                weakOperation = operation
                let queue = OperationQueue()
                queue.addOperation(operation)
                queue.waitUntilAllOperationsAreFinished()
                operation.addDependency(dependency)  // cannot hold back what already ran
            }
            usleep(20_000)
            precondition(weakOperation != nil, "freed while its dependency, which holds it unretained, had not run")
            let other = OperationQueue()
            other.addOperation(dependency)
            other.waitUntilAllOperationsAreFinished()
            precondition(eventually { weakOperation == nil }, "never freed")
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
