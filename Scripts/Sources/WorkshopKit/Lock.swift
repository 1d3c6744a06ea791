#if os(macOS) || os(Linux)
    import Foundation
    #if os(Linux)
        import Glibc
    #else
        import Darwin
    #endif

    /// One runner at a time in a build folder: two checks at once would share the package
    /// manager's build (the second waits for the first without a word, and may run the test
    /// binary the other one just rebuilt) and the run's files.
    ///
    /// An advisory lock (`flock`) on a file in the folder, which the system releases when the
    /// holder ends, however it ends (also `kill -9`). The holder writes who it is beside it, so
    /// that a runner that waits can say for whom; and every process it starts, so that the
    /// next holder can stop what a killed runner left running.
    public final class FolderLock: @unchecked Sendable {
        // @unchecked Sendable: `descriptor` changes only in tryLock and unlock, called by the
        // thread that owns the runner; `record`, which verify's runs call from their threads,
        // writes under `recording`.
        public let folder: URL
        private var descriptor: Int32 = -1
        /// `record` may be called from the threads of several runs at once (verify).
        private let recording = NSLock()

        public init(folder: URL) {
            self.folder = folder
        }

        var lockFile: URL { folder.appendingPathComponent("runner.lock") }
        var holderFile: URL { folder.appendingPathComponent("runner.json") }
        var processesFile: URL { folder.appendingPathComponent("processes.json") }

        /// Who holds the lock: what the holder wrote when it took it.
        public struct Holder: Codable, Equatable, Sendable {
            public var pid: Int32
            public var command: String
            public var since: Date
        }

        /// Takes the lock if it is free; true if this runner holds it now.
        public func tryLock(as command: String) throws -> Bool {
            if descriptor >= 0 { return true }
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            // Close-on-exec: a process the runner starts must not inherit the lock, or a killed
            // runner's leftovers would hold it for ever.
            let fd = open(lockFile.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw WorkshopError("could not open \(lockFile.path): \(String(cString: strerror(errno)))")
            }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                return false
            }
            descriptor = fd
            let holder = Holder(pid: getpid(), command: command, since: Date())
            try? JSONEncoder().encode(holder).write(to: holderFile, options: .atomic)
            return true
        }

        /// Whether a process that this runner starts would inherit the lock: it must not, or a
        /// killed runner's leftovers would hold it for ever.
        public var passesToChildren: Bool {
            descriptor >= 0 && fcntl(descriptor, F_GETFD) & FD_CLOEXEC == 0
        }

        /// The holder's own words, if it wrote them (a lock taken a moment ago may not have yet).
        public func holder() -> Holder? {
            (try? Data(contentsOf: holderFile)).flatMap { try? JSONDecoder().decode(Holder.self, from: $0) }
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

        // MARK: - The processes a holder started

        struct Recorded: Codable, Equatable {
            var pid: Int32
            var started: UInt64
        }

        /// Adds `processes` to those this holder started (written at once: the holder may be
        /// killed at any moment).
        public func record(_ processes: [ProcessEntry]) {
            guard descriptor >= 0, !processes.isEmpty else { return }
            recording.lock()
            defer { recording.unlock() }
            var known = recorded()
            let fresh = processes.map { Recorded(pid: $0.pid, started: $0.started) }.filter { !known.contains($0) }
            guard !fresh.isEmpty else { return }
            known += fresh
            try? JSONEncoder().encode(known).write(to: processesFile, options: .atomic)
        }

        func recorded() -> [Recorded] {
            (try? Data(contentsOf: processesFile)).flatMap { try? JSONDecoder().decode([Recorded].self, from: $0) }
                ?? []
        }

        /// Stops the processes that an earlier holder recorded and that still run (the same pid,
        /// started at the same moment): a holder that ended normally left none, so these are
        /// what a killed runner left behind. Returns their pids. Call it once the lock is held.
        @discardableResult
        public func stopLeftovers() -> [Int32] {
            defer { try? FileManager.default.removeItem(at: processesFile) }
            return ProcessTable.stop(recorded().map { ($0.pid, $0.started) })
        }
    }
#endif
