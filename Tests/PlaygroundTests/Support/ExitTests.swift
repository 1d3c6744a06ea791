import Dispatch
import Testing

#if os(macOS) || os(Linux)
    extension Trait where Self == ExitTestsOffThePool {
        /// For a test that runs an exit test (`#expect(processExitsWith:)`): Swift Testing's
        /// waits for the child process block threads of their own, not the cooperative pool's.
        static var exitTest: Self { Self() }
    }

    /// Runs a test with a task executor preference for `OwnThreadExecutor`, which the tasks that
    /// Swift Testing starts for its exit tests inherit.
    ///
    /// While an exit test's child runs, Swift Testing (6.3) reads the child's event pipe, and
    /// its standard output and error when they are observed, until the child exits: blocking
    /// reads, in tasks of the test. On the cooperative pool (one thread per core) two exit tests
    /// whose children live for a second hold every thread, and no other test can resume: on a
    /// loaded machine, a whole run's 10 s bounds failed together, while the operations they
    /// awaited had long finished.
    struct ExitTestsOffThePool: TestTrait, SuiteTrait, TestScoping {
        var isRecursive: Bool { true }

        func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            guard testCase != nil, #available(macOS 15, *) else { return try await function() }
            try await withTaskExecutorPreference(OwnThreadExecutor.shared) { try await function() }
        }
    }

    /// A task executor that runs each job on a serial dispatch queue of its own. Dispatch serves
    /// such queues from its overcommit threads, not from the cooperative pool, and starts
    /// another thread when every one of them is blocked. (A task enqueues its next job only
    /// once the last one has suspended or returned, so a task's jobs never overlap.)
    @available(macOS 15, *)
    final class OwnThreadExecutor: TaskExecutor {
        static let shared = OwnThreadExecutor()

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedTaskExecutor()
            DispatchQueue(label: "AsyncOperationsPlayground.exit-test").async { job.runSynchronously(on: executor) }
        }
    }
#endif
