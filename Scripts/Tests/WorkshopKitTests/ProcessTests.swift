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
    /// manager runs the tests in a group of their own). These start /bin/sh and /bin/bash,
    /// which both platforms have; the runner itself needs no shell.
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
