import Foundation

/// One runner at a time in a build folder: two checks at once would share the package
/// manager's build and the run's files.
///
/// An advisory lock (`flock`) on a file in the folder, which the system releases when the
/// holder ends, however it ends (also `kill -9`). The holder writes who it is beside it, so
/// that a runner that waits can say for whom; and every process it starts, so that the
/// next holder can stop what a killed runner left running.
public final class FolderLock: @unchecked Sendable {
    // @unchecked Sendable: `descriptor` changes only in tryLock and unlock, called by the
    // thread that owns the runner; `record`, which runs call from their threads, writes
    // under `recording`.
    public let folder: URL
    private var descriptor: Int32 = -1
    private let recording = NSLock()

    public init(folder: URL) {
        self.folder = folder
    }

    var holderFile: URL { folder.appendingPathComponent("runner.txt") }
    var processesFile: URL { folder.appendingPathComponent("processes.txt") }

    /// Takes the lock if it is free; true if this runner holds it now.
    public func tryLock(as command: String) throws -> Bool {
        if descriptor >= 0 { return true }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Close-on-exec: a process the runner starts must not inherit the lock, or a killed
        // runner's leftovers would hold it for ever.
        let fd = open(folder.appendingPathComponent("runner.lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw WorkshopError("could not lock \(folder.path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return false
        }
        descriptor = fd
        try? "`\(command)` (process \(getpid()))".write(to: holderFile, atomically: true, encoding: .utf8)
        return true
    }

    /// Whether a process that this runner starts would inherit the lock.
    public var passesToChildren: Bool {
        descriptor >= 0 && fcntl(descriptor, F_GETFD) & FD_CLOEXEC == 0
    }

    /// Who holds the lock, in the holder's words (a lock taken a moment ago may have none yet).
    public func holder() -> String? {
        try? String(contentsOf: holderFile, encoding: .utf8)
    }

    /// Releases the lock, after forgetting the processes it recorded (they have ended).
    public func unlock() {
        guard descriptor >= 0 else { return }
        try? FileManager.default.removeItem(at: processesFile)
        try? FileManager.default.removeItem(at: holderFile)
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { unlock() }

    /// Adds `processes` to those this holder started, one "pid start-time" line each
    /// (written at once: the holder may be killed at any moment).
    public func record(_ processes: [ProcessEntry]) {
        guard descriptor >= 0 else { return }
        recording.withLock {
            let known = recorded()
            let fresh = processes.filter { entry in !known.contains { $0 == (entry.pid, entry.started) } }
            guard !fresh.isEmpty else { return }
            let lines = (known + fresh.map { ($0.pid, $0.started) }).map { "\($0.pid) \($0.started)\n" }
            try? lines.joined().write(to: processesFile, atomically: true, encoding: .utf8)
        }
    }

    func recorded() -> [(pid: pid_t, started: UInt64)] {
        let text = (try? String(contentsOf: processesFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let pid = pid_t(parts[0]), let started = UInt64(parts[1]) else { return nil }
            return (pid, started)
        }
    }

    /// Stops the processes that an earlier holder recorded and that still run (the same pid,
    /// started at the same moment): a holder that ended normally left none, so these are
    /// what a killed runner left behind. Returns their pids. Call it once the lock is held.
    @discardableResult
    public func stopLeftovers() -> [Int32] {
        defer { try? FileManager.default.removeItem(at: processesFile) }
        return ProcessTable.stop(recorded())
    }
}
