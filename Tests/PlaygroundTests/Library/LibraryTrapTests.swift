import AsyncOperations
import CompletionOperations
import Foundation
import TaskOperations
import Testing

#if os(macOS) || os(Linux)
    @Suite("The library's traps, each in a child process")
    struct LibraryTrapTests {
        @Test(
            "start() of an operation whose dependency has not finished traps, as Foundation's start() does", .exitTest)
        func startBeforeDependencies() async {
            await #expect(processExitsWith: .failure) {
                let dependency = BlockOperation {}
                let operation = CompletionOperation { $0() }
                operation.addDependency(dependency)
                operation.start()
                exit(0)
            }
        }

        @Test(
            "TaskOperation: finish() from outside while the task runs traps instead of ending without a result",
            .exitTest)
        func taskOperationFinishTraps() async {
            await #expect(processExitsWith: .failure) {
                let operation = TaskOperation { () async throws -> String in
                    try await Task.sleep(nanoseconds: 60 * 1_000_000_000)
                    return "slept"
                }
                operation.start()
                operation.finish()
                exit(0)
            }
        }
    }
#endif
