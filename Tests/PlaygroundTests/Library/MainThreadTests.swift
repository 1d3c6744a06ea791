import Foundation
import TestSupport
import Testing

// The library's checks of start() where the main thread is involved: queues whose operations run
// on it, and start() by hand on it. An exit test's body does not run on the main thread, so each
// scene runs in the small program `library-scenes` (Chapters/Support/LibraryScenes), which fails with a line
// saying why, traps, crashes, or is stopped by its watchdog (status 86).

#if os(macOS) || os(Linux)
    /// Serialized: its child processes, one at a time, leave the rest of the suite the processors.
    @Suite("The library on the main thread", .serialized, .timeLimit(.minutes(2)))
    struct MainThreadTests {
        /// Runs a scene; its exit status (nil if it did not exit within `seconds`), and what it
        /// printed to standard output and to standard error.
        private func run(_ scene: String, within seconds: Double = 90) async throws -> (
            status: Int32?, printed: String, errors: String
        ) {
            // No backtrace on a trap: symbolizing a sanitized program takes the child many
            // seconds of processor time, which the rest of the suite then misses.
            let child = try ChildProcess(
                "library-scenes", arguments: [scene], environment: ["SWIFT_BACKTRACE": "enable=no"])
            let exited = await child.exits(within: seconds)
            if !exited { child.terminate() }
            return (child.status, child.printedLines.joined(separator: "\n"), child.errorOutput)
        }

        @Test("start() by hand on the main thread before a dependency finished traps, naming the mistake")
        func notReadyHandStartOnTheMainThread() async throws {
            let outcome = try await run("not-ready-hand-start-on-the-main-thread")
            #expect(outcome.status != 0 && outcome.status != 1 && outcome.status != 86, "\(outcome.printed)")
            #expect(
                outcome.errors.contains("was started by hand before its dependencies finished"), "\(outcome.errors)")
        }

        @Test("a dependency added while a queue that runs on the main thread starts the operation: it runs, no crash")
        func lateDependencyOnTheMainThread() async throws {
            let outcome = try await run("late-dependency-on-the-main-thread")
            #expect(outcome.status == 0, "\(outcome.printed)\n\(outcome.errors)")
        }

        #if os(Linux)
            /// The limit of the check: on Linux, a block that the main thread runs from its run
            /// loop cannot be told from a queue's start on the main thread, so the mistake runs.
            @Test("Linux: start() by hand before a dependency finished, in a main-queue block: not told apart, it runs")
            func notReadyHandStartInAMainQueueBlock() async throws {
                let outcome = try await run("not-ready-hand-start-in-a-main-queue-block")
                #expect(outcome.status == 0, "\(outcome.printed)\n\(outcome.errors)")
            }
        #endif
    }
#endif
