import AsyncOperations
import Foundation
import OperationContract

/// Whether this process is still at work: what decides how long a bounded wait goes on once its
/// bound has passed.
///
/// Swift Testing starts every test of a run at once, and the cooperative pool has one thread per
/// core. On a loaded machine the work a test waits for can stand in line behind the other
/// tests' work for longer than any fixed bound (at load 16 on 2 cores, a whole run's 10 s
/// bounds failed together, while the operations they awaited were merely late). A broken
/// version that hangs leaves nothing to do: its process goes quiet. So a wait that must end in
/// an event (`Flag.wait`, `completes(within:)`, …) gives up once its bound has passed *and*
/// the process has been quiet for `quietSeconds`, or at `capFactor` times its bound.
///
/// Quiet means: no thread of the process (but the watcher's own) used the processor, and on
/// Linux no thread was waiting for a processor and no child process (an exit test's, the
/// compiler, a chapter run) worked either. On Darwin only the processor time is looked at.
public enum ProcessActivity {
    /// How long the process must have been quiet before a late wait gives up.
    public static let quietSeconds = 1.0

    /// A late wait gives up at this many times its bound, quiet or not (a broken version that
    /// spins, or another test that never stops).
    public static let capFactor = 12.0

    /// Raises `signal` once the process has been quiet for `quietSeconds`.
    static func raiseWhenQuiet(_ signal: Signal) {
        watcher.add(signal)
    }

    /// Stops watching for `signal` (its wait ended).
    static func forget(_ signal: Signal) {
        watcher.remove(signal)
    }

    private static let watcher = QuietWatcher()
}

/// After a bound has passed without `isDone()`: waits on while the process works, and returns
/// `isDone()` once `wake` is raised (by whoever makes `isDone()` true), once the process has
/// been quiet, or at the cap.
func waitedPastTheBound(_ bound: Double, wake: Signal, isDone: () -> Bool) async -> Bool {
    if isDone() { return true }
    ProcessActivity.raiseWhenQuiet(wake)
    _ = await wake.wait(seconds: bound * (ProcessActivity.capFactor - 1))
    ProcessActivity.forget(wake)
    return isDone()
}

/// True once `condition` holds, looked at every few milliseconds; false once `seconds` (times
/// `boundStretch`) have passed and the process has been quiet (`ProcessActivity`).
public func eventually(within seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let bound = seconds * boundStretch
    let deadline = ContinuousClock.now + .seconds(bound)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    let gaveUp = Signal()
    ProcessActivity.raiseWhenQuiet(gaveUp)
    defer { ProcessActivity.forget(gaveUp) }
    let cap = ContinuousClock.now + .seconds(bound * (ProcessActivity.capFactor - 1))
    while !gaveUp.isRaised, ContinuousClock.now < cap {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))  // seldom: its own wake-ups are work too
    }
    return condition()
}

/// The thread that watches the process while late waits need it, and raises their signals once
/// it has been quiet for `ProcessActivity.quietSeconds`.
private final class QuietWatcher: Sendable {
    private struct State {
        var waiting: [ObjectIdentifier: Signal] = [:]
        var running = false
    }

    private let state = Locked(State())

    func add(_ signal: Signal) {
        let start = state.withLock { state in
            state.waiting[ObjectIdentifier(signal)] = signal
            defer { state.running = true }
            return !state.running
        }
        if start { Thread { self.watch() }.start() }
    }

    func remove(_ signal: Signal) {
        _ = state.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(signal)) }
    }

    /// Samples every 0.1 s while anyone waits; raises every waiter once `quietSeconds` have
    /// passed without a busy sample.
    private func watch() {
        var sampler = ActivitySampler()
        var quietSince = ContinuousClock.now
        while true {
            usleep(100_000)
            if sampler.wasBusy() { quietSince = ContinuousClock.now }
            let quiet = ContinuousClock.now - quietSince >= .seconds(ProcessActivity.quietSeconds)
            let (waiters, stop) = state.withLock { state -> ([Signal], Bool) in
                let waiters = quiet ? Array(state.waiting.values) : []
                if quiet { state.waiting = [:] }
                if state.waiting.isEmpty { state.running = false }
                return (waiters, state.waiting.isEmpty)
            }
            for waiter in waiters { waiter.raise() }
            if stop { return }
        }
    }
}

/// Reads how much the process (and on Linux its children) worked since the last look.
private struct ActivitySampler {
    private var processTime = Self.cpuTime(CLOCK_PROCESS_CPUTIME_ID)
    private var ownTime = Self.cpuTime(CLOCK_THREAD_CPUTIME_ID)
    private var childTimes: [String: Int] = [:]

    /// True if, since the last look, another thread used at least a millisecond of processor
    /// time, or (Linux) a thread waits for a processor now, or a child process worked.
    mutating func wasBusy() -> Bool {
        let process = Self.cpuTime(CLOCK_PROCESS_CPUTIME_ID)
        let own = Self.cpuTime(CLOCK_THREAD_CPUTIME_ID)
        defer { (processTime, ownTime) = (process, own) }
        var busy = (process - processTime) - (own - ownTime) >= 0.001
        #if os(Linux)
            busy = childrenWorked() || busy  // always look, to keep the children's times current
            busy = busy || anotherThreadIsRunnable()
        #endif
        return busy
    }

    private static func cpuTime(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    #if os(Linux)
        /// True if a thread of the process other than this one is running or waits for a
        /// processor (state R), or waits for the disk (D).
        private func anotherThreadIsRunnable() -> Bool {
            let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))?
                .split(separator: "/").last.map(String.init)
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return threads.contains { thread in
                thread != me && ["R", "D"].contains(Self.state(of: "/proc/self/task/\(thread)/stat"))
            }
        }

        /// True if a child process (or one of its own children) is runnable or used processor
        /// time since the last look.
        private mutating func childrenWorked() -> Bool {
            var worked = false
            var seen: [String: Int] = [:]
            var pending = Self.children(of: "self")
            while let child = pending.popLast() {
                guard seen[child] == nil, let (state, ticks) = Self.stat(of: "/proc/\(child)/stat") else { continue }
                seen[child] = ticks
                if state == "R" || state == "D" || ticks != childTimes[child] { worked = true }
                pending += Self.children(of: child)
            }
            childTimes = seen
            return worked
        }

        /// The processes that `process` ("self" or a process number) started.
        private static func children(of process: String) -> [String] {
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/task")) ?? []
            return threads.flatMap { thread in
                let list = (try? String(contentsOfFile: "/proc/\(process)/task/\(thread)/children", encoding: .utf8))
                return list?.split(separator: " ").map(String.init) ?? []
            }
        }

        /// The state letter in a /proc stat file.
        private static func state(of path: String) -> String? {
            stat(of: path)?.state
        }

        /// The state letter and the processor time used (user and system, in clock ticks) in a
        /// /proc stat file: after the parenthesised name, field 3 is the state, 14 and 15 the times.
        private static func stat(of path: String) -> (state: String, ticks: Int)? {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                let close = text.lastIndex(of: ")")
            else { return nil }
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
            return (String(fields[0]), user + system)
        }
    #endif
}
