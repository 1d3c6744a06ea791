#if os(macOS) || os(Linux)
    import Foundation
    import Testing
    import WorkshopKit
    #if os(Linux)
        import Glibc
    #else
        import Darwin
    #endif

    /// The runner stops everything it started, also what left its process group (the package
    /// manager runs the tests in a group of their own), and tells a busy process from a
    /// waiting one. These start /bin/sh and /bin/bash, which both platforms have; the runner
    /// itself needs no shell.
    @Suite("Workshop runner — processes it starts, and stops")
    struct ProcessTests {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "workshop-processes-\(UUID().uuidString)")

        @Test("stopAll ends a grandchild that runs in a process group of its own")
        func stopsWhatLeftTheGroup() async throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let pidFile = folder.appendingPathComponent("grandchild")
            // `set -m`: bash puts its background job in a process group of its own.
            let child = try ChildProcess(
                ["/bin/bash", "-c", "set -m; sleep 300 & echo $! > '\(pidFile.path)'; wait"], environment: [:],
                outputFile: folder.appendingPathComponent("output"))
            let grandchild = try await waitForPID(in: pidFile)
            #expect(getpgid(grandchild) != getpgid(child.pid), "the test needs a grandchild in another group")
            #expect(ProcessTable.isRunning(grandchild))
            child.stopAll()
            #expect(child.poll() != nil)
            #expect(await ended(grandchild), "the grandchild still runs after stopAll")
        }

        @Test("a process that loops uses a processor; one that waits does not")
        func busyOrWaiting() async throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let looping = try ChildProcess(
                ["/bin/sh", "-c", "while :; do :; done"], environment: [:],
                outputFile: folder.appendingPathComponent("a"))
            let waiting = try ChildProcess(
                ["/bin/sh", "-c", "sleep 300"], environment: [:], outputFile: folder.appendingPathComponent("b"))
            defer {
                looping.stopAll()
                waiting.stopAll()
            }
            let loopStart = try #require(looping.processorSeconds())
            let waitStart = try #require(waiting.processorSeconds())
            // The runner's rule: a loop gets its share of a processor however loaded the machine
            // is, a sleep gets none. A loaded machine may hand the loop its share late, so this
            // waits (20 s at most) until the loop has used what the rule expects of it, over at
            // least a second, instead of judging one fixed window.
            let started = ContinuousClock.now
            var elapsed = 0.0
            var loopUsed = 0.0
            var waitUsed = 0.0
            repeat {
                try await Task.sleep(for: .milliseconds(100))
                let duration = ContinuousClock.now - started
                elapsed = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
                loopUsed = try #require(looping.processorSeconds()) - loopStart
                waitUsed = try #require(waiting.processorSeconds()) - waitStart
            } while elapsed < 20 && (elapsed < 1 || !ProcessorUse.isBusy(secondsPerSecond: loopUsed / elapsed))
            #expect(
                ProcessorUse.isBusy(secondsPerSecond: loopUsed / elapsed),
                "the loop used \(loopUsed) s of processor time in \(elapsed) s")
            #expect(
                !ProcessorUse.isBusy(secondsPerSecond: waitUsed / elapsed),
                "the sleep used \(waitUsed) s of processor time in \(elapsed) s")
        }

        @Test("the exit status of a process that exits, and of one that a signal ends")
        func exitStatus() throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let exits = try ChildProcess(
                ["/bin/sh", "-c", "exit 3"], environment: [:], outputFile: folder.appendingPathComponent("a"))
            #expect(exits.wait() == 3)
            let killed = try ChildProcess(
                ["/bin/sh", "-c", "kill -SEGV $$"], environment: [:], outputFile: folder.appendingPathComponent("b"))
            #expect(killed.wait() == 128 + SIGSEGV)
        }

        func waitForPID(in file: URL) async throws -> pid_t {
            for _ in 0..<200 {
                if let text = try? String(contentsOf: file, encoding: .utf8),
                    let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
                {
                    return pid
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            throw WorkshopError("the shell never wrote its background job's process id")
        }

        /// True once `pid` no longer runs (a zombie waiting for its new parent counts as
        /// ended), false after a few seconds.
        func ended(_ pid: pid_t) async -> Bool {
            for _ in 0..<100 {
                if !ProcessTable.isRunning(pid) { return true }
                try? await Task.sleep(for: .milliseconds(30))
            }
            return false
        }
    }
#endif
