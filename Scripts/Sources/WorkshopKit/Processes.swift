import Foundation

#if canImport(Darwin)
    import Darwin  // libproc
#endif

/// A process the runner started, in a process group of its own, with its output going to a
/// file; the runner polls it instead of blocking, so that it can bound it and stop it.
public final class ChildProcess {
    public let pid: pid_t
    private var status: Int32?

    /// Starts `arguments[0]` (looked up in PATH), its standard output and error going to
    /// `outputFile`, its standard input empty.
    public init(_ arguments: [String], environment: [String: String], outputFile: URL) throws {
        #if os(Linux)
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #else
            var actions: posix_spawn_file_actions_t?
            var attributes: posix_spawnattr_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // A group of its own (so that the terminal's Ctrl-C reaches only the runner, which
        // stops it), no blocked signal, and the default action for those the runner ignores.
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { sigaddset(&signals, signal) }
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw WorkshopError("could not start \(arguments[0]): \(String(cString: strerror(result)))")
        }
        self.pid = pid
    }

    /// The exit status once the process has ended (128 + the signal if a signal ended
    /// it), nil while it runs. Never blocks.
    public func poll() -> Int32? {
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        // WIFEXITED/WEXITSTATUS/WTERMSIG, which Swift does not import.
        status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
        return status
    }

    /// Waits for the process to end.
    public func wait() -> Int32 {
        while true {
            if let status = poll() { return status }
            usleep(20_000)
        }
    }

    /// Stops the process and everything it started, also what left its process group
    /// (the package manager runs the tests in a group of their own).
    public func stopAll() {
        guard poll() == nil else { return }
        ProcessTable.stop(ProcessTable.snapshot().filter { $0.pid == pid }.map { ($0.pid, $0.started) })
        _ = wait()
    }
}

/// A process in the system's table.
public struct ProcessEntry: Sendable {
    public let pid: pid_t
    public let parent: pid_t
    /// When the process started, in the system's own units: with the pid, it tells a
    /// process from a later one that got the same pid.
    public let started: UInt64
}

/// The system's processes, read natively: /proc on Linux, libproc on macOS.
public enum ProcessTable {
    public static func snapshot() -> [ProcessEntry] {
        #if os(Linux)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return names.compactMap { name in
                // After "pid (command)": state ppid … (starttime is the 20th field).
                guard let pid = pid_t(name), let fields = fields(of: pid), fields.count > 19,
                    let parent = pid_t(fields[1])
                else { return nil }
                return ProcessEntry(pid: pid, parent: parent, started: UInt64(fields[19]) ?? 0)
            }
        #else
            var pids = [pid_t](repeating: 0, count: Int(proc_listallpids(nil, 0)) + 64)
            let count = pids.withUnsafeMutableBytes { Int(proc_listallpids($0.baseAddress, Int32($0.count))) }
            return pids.prefix(max(0, min(count, pids.count))).filter { $0 > 0 }.compactMap { pid in
                guard let info = info(of: pid) else { return nil }
                let started = UInt64(info.pbi_start_tvsec) * 1_000_000 + UInt64(info.pbi_start_tvusec)
                return ProcessEntry(pid: pid, parent: pid_t(info.pbi_ppid), started: started)
            }
        #endif
    }

    #if os(Linux)
        /// The fields of /proc/PID/stat after "pid (command)".
        static func fields(of pid: pid_t) -> [Substring]? {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            return stat[stat.index(after: close)...].split(separator: " ")
        }
    #else
        static func info(of pid: pid_t) -> proc_bsdinfo? {
            var info = proc_bsdinfo()
            let size = Int32(MemoryLayout<proc_bsdinfo>.size)
            return proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &info, size) == size ? info : nil
        }
    #endif

    /// Whether `pid` is a process that runs (or is stopped), not ended: a killed process
    /// stays in the table as a zombie until its parent collects it.
    public static func isRunning(_ pid: pid_t) -> Bool {
        #if os(Linux)
            guard let state = fields(of: pid)?.first else { return false }
            return state != "Z" && state != "X"
        #else
            return info(of: pid).map { $0.pbi_status != UInt32(SZOMB) } ?? false
        #endif
    }

    /// Stops the processes `processes` names (a pid and its start time) that still run, and
    /// every process they started: each is frozen first, so that none can start another one
    /// or be orphaned unseen, then all are killed. Returns the pids of those named.
    @discardableResult
    public static func stop(_ processes: [(pid: pid_t, started: UInt64)]) -> [pid_t] {
        guard !processes.isEmpty else { return [] }
        let alive = snapshot().filter { entry in
            processes.contains { $0.pid == entry.pid && $0.started == entry.started } && isRunning(entry.pid)
        }.map(\.pid)
        var frozen = alive
        for pid in frozen { kill(pid, SIGSTOP) }
        for _ in 0..<20 {
            let table = snapshot()
            let fresh = Set(frozen.flatMap { descendants(of: $0, in: table).map(\.pid) }).subtracting(frozen)
            if fresh.isEmpty { break }
            for pid in fresh { kill(pid, SIGSTOP) }
            frozen += fresh
        }
        for pid in frozen.reversed() {
            kill(-pid, SIGKILL)  // the group it leads, if any
            kill(pid, SIGKILL)
        }
        return alive.sorted()
    }

    /// Every process below `root` in `table`.
    public static func descendants(of root: pid_t, in table: [ProcessEntry]) -> [ProcessEntry] {
        var found: [ProcessEntry] = []
        var parents: Set<pid_t> = [root]
        var grew = true
        while grew {
            grew = false
            for entry in table where parents.contains(entry.parent) && !parents.contains(entry.pid) {
                found.append(entry)
                parents.insert(entry.pid)
                grew = true
            }
        }
        return found
    }
}
