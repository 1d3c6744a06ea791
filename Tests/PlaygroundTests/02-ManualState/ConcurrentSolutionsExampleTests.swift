import AsyncOperations
import Dispatch
import Foundation
import ManualState
import TestSupport
import Testing

#if os(macOS) || os(Linux)
    @Suite("Chapter 2 — ConcurrentSolutionsPost's example, as its call site runs it")
    struct ConcurrentSolutionsExampleTests {
        @Test("it prints Starting, Executing, then the caller's Operations finished", .exitTest)
        func printsInOrder() async {
            let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
                startWatchdog(seconds: 30)  // a call site that never returned would end the child, failing
                ConcurrentSolutionsExampleTests.runTheCallSite()
                exit(0)
            }
            let printed = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
            #expect(printed == "Starting\nExecuting\nOperations finished\n")
        }

        /// The post's call site, with a shorter delay. Synchronous: it blocks in
        /// `waitUntilFinished`, which only a child process's own thread may.
        static func runTheCallSite() {
            let queue = OperationQueue()
            let operation = ConcurrentSolutionsPost.AsyncOperationWithExample(delay: .milliseconds(10))
            queue.addOperations([operation], waitUntilFinished: true)
            print("Operations finished")
        }
    }
#endif
