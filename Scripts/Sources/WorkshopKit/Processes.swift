#if os(macOS) || os(Linux)
    import Foundation
    #if os(Linux)
        import Glibc
    #else
        import Darwin
    #endif

    /// A process the runner started, in a process group of its own, with its output going to a
    /// file; the runner polls it instead of blocking, so that it can bound it and stop it.
    public final class ChildProcess {
        public let pid: pid_t
        private var status: Int32?

        /// Starts `arguments[0]` (looked up in PATH), its standard output and error going to
        /// `outputFile`, its standard input empty.
        public init(_ arguments: [String], environment: [String: String], outputFile: URL) throws {
            var actions = SpawnActions()
            var attributes = SpawnAttributes()
            defer {
                actions.destroy()
                attributes.destroy()
            }
            actions.open(0, "/dev/null", O_RDONLY)
            actions.open(1, outputFile.path, O_WRONLY | O_CREAT | O_TRUNC)
            actions.duplicate(1, as: 2)
            attributes.startOwnGroup()

            let argv = arguments.map { strdup($0) } + [nil]
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer {
                for pointer in argv + envp { free(pointer) }
            }
            var pid: pid_t = 0
            let result = posix_spawnp(&pid, arguments[0], &actions.value, &attributes.value, argv, envp)
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
            status = Self.decode(raw)
            return status
        }

        /// Waits for the process to end.
        public func wait() -> Int32 {
            while true {
                if let status = poll() { return status }
                usleep(20_000)
            }
        }

        /// waitpid's status word: WIFEXITED/WEXITSTATUS/WTERMSIG, which Swift does not import.
        static func decode(_ raw: Int32) -> Int32 {
            let signal = raw & 0x7f
            return signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        }

        /// Stops the process and everything it started, also what left its process group
        /// (the package manager runs the tests in a group of their own).
        public func stopAll() {
            guard poll() == nil else { return }
            kill(pid, SIGSTOP)
            ProcessTable.stop(ProcessTable.snapshot().filter { $0.pid == pid }.map { ($0.pid, $0.started) })
            _ = wait()
        }

        /// Processor time used so far by the process and its descendants, in seconds.
        public func processorSeconds() -> Double? {
            let table = ProcessTable.snapshot()
            let tree = table.filter { $0.pid == pid } + ProcessTable.descendants(of: pid, in: table)
            let times = tree.compactMap(\.processorSeconds)
            return times.isEmpty ? nil : times.reduce(0, +)
        }
    }

    /// A process in the system's table.
    public struct ProcessEntry: Sendable {
        public let pid: pid_t
        public let parent: pid_t
        public let processorSeconds: Double?
        /// When the process started, in the system's own units: with the pid, it tells a
        /// process from a later one that got the same pid.
        public let started: UInt64
    }

    /// The system's processes, read natively: /proc on Linux, libproc on macOS.
    public enum ProcessTable {
        public static func snapshot() -> [ProcessEntry] {
            #if os(Linux)
                let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
                let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
                return names.compactMap { name -> ProcessEntry? in
                    guard let pid = pid_t(name),
                        let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                        let close = stat.lastIndex(of: ")")
                    else { return nil }
                    // After "pid (command)": state ppid pgrp session tty tpgid flags minflt
                    // cminflt majflt cmajflt utime stime …
                    let fields = stat[stat.index(after: close)...].split(separator: " ")
                    guard fields.count > 12, let parent = pid_t(fields[1]) else { return nil }
                    let seconds = (Double(fields[11]) ?? 0) / ticks + (Double(fields[12]) ?? 0) / ticks
                    // … cutime cstime priority nice num_threads itrealvalue starttime.
                    let started = fields.count > 19 ? UInt64(fields[19]) ?? 0 : 0
                    return ProcessEntry(pid: pid, parent: parent, processorSeconds: seconds, started: started)
                }
            #else
                let capacity = Int(proc_listallpids(nil, 0)) + 64
                var pids = [pid_t](repeating: 0, count: capacity)
                let count = pids.withUnsafeMutableBytes { buffer in
                    Int(proc_listallpids(buffer.baseAddress, Int32(buffer.count)))
                }
                var timebase = mach_timebase_info_data_t()
                mach_timebase_info(&timebase)
                return pids.prefix(max(0, min(count, capacity))).filter { $0 > 0 }.compactMap { pid in
                    var info = proc_bsdinfo()
                    let size = Int32(MemoryLayout<proc_bsdinfo>.size)
                    guard proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &info, size) == size else { return nil }
                    var task = proc_taskinfo()
                    let taskSize = Int32(MemoryLayout<proc_taskinfo>.size)
                    var seconds: Double?
                    if proc_pidinfo(pid, PROC_PIDTASKINFO, 0, &task, taskSize) == taskSize {
                        // In Mach time units on Apple silicon (inferred from Apple's sample
                        // code; not verified here): converted with the timebase.
                        let units = Double(task.pti_total_user + task.pti_total_system)
                        seconds = units * Double(timebase.numer) / Double(timebase.denom) / 1e9
                    }
                    let started = UInt64(info.pbi_start_tvsec) * 1_000_000 + UInt64(info.pbi_start_tvusec)
                    return ProcessEntry(
                        pid: pid, parent: pid_t(info.pbi_ppid), processorSeconds: seconds, started: started)
                }
            #endif
        }

        /// Whether `pid` is a process that runs (or is stopped), not ended: a killed process
        /// stays in the table as a zombie until its parent collects it.
        public static func isRunning(_ pid: pid_t) -> Bool {
            #if os(Linux)
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { return false }
                let state = stat[stat.index(after: close)...].split(separator: " ").first
                return state != "Z" && state != "X"
            #else
                var info = proc_bsdinfo()
                let size = Int32(MemoryLayout<proc_bsdinfo>.size)
                guard proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &info, size) == size else { return false }
                return info.pbi_status != UInt32(SZOMB)
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

    /// posix_spawn's file actions, whose C type differs between Glibc (a struct) and Darwin
    /// (an opaque pointer).
    struct SpawnActions {
        #if os(Linux)
            var value = posix_spawn_file_actions_t()
        #else
            var value: posix_spawn_file_actions_t? = nil
        #endif

        init() { posix_spawn_file_actions_init(&value) }
        mutating func destroy() { posix_spawn_file_actions_destroy(&value) }
        mutating func open(_ descriptor: Int32, _ path: String, _ flags: Int32) {
            posix_spawn_file_actions_addopen(&value, descriptor, path, flags, 0o644)
        }
        mutating func duplicate(_ descriptor: Int32, as other: Int32) {
            posix_spawn_file_actions_adddup2(&value, descriptor, other)
        }
    }

    struct SpawnAttributes {
        #if os(Linux)
            var value = posix_spawnattr_t()
        #else
            var value: posix_spawnattr_t? = nil
        #endif

        init() { posix_spawnattr_init(&value) }
        mutating func destroy() { posix_spawnattr_destroy(&value) }

        /// A process group of its own (so that the terminal's Ctrl-C reaches the runner, which
        /// stops it), with the default signal actions and no blocked signals: the runner
        /// ignores SIGINT itself, and an ignored signal would be inherited.
        mutating func startOwnGroup() {
            posix_spawnattr_setpgroup(&value, 0)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigdefault(&value, &defaults)
            var none = sigset_t()
            sigemptyset(&none)
            posix_spawnattr_setsigmask(&value, &none)
            let flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
            posix_spawnattr_setflags(&value, Int16(flags))
        }
    }
#endif
