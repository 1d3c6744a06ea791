import Foundation

/// What a thread of the test process is doing at one moment, as Linux reports it: running,
/// blocked in a wait that has no time limit, or in a wait or a sleep that ends by itself.
///
/// For a test that holds something another thread waits for (gates, a held queue) and must
/// tell, without waiting that long itself, whether that thread would wait for ever or give up
/// after a while: a `wait(timeout:)` of ten minutes looks, for ten minutes, like a wait for the
/// signal, except to the kernel. It reads `/proc/self/task/<tid>/syscall`, which names the
/// system call a blocked thread is in, with its arguments (`man 5 proc`): `futex` with no
/// timeout is a wait without a limit (`DispatchSemaphore.wait()`, `DispatchGroup.wait()`,
/// `workQueue.sync`, `NSCondition.wait()`); `futex` with a timeout, `nanosleep` and
/// `clock_nanosleep` are not (`wait(timeout:)`, `Thread.sleep`, `usleep`).
///
/// Linux only, on x86_64 and arm64 (the system call numbers differ by architecture); on
/// Darwin, or where the file cannot be read, `ThreadActivity.of` says `.unknown`.
public enum ThreadActivity: Sendable, Equatable, CustomStringConvertible {
    /// Not blocked: running, or ready to run.
    case running
    /// Blocked in a wait with no time limit (the system call's name).
    case waitingWithoutLimit(String)
    /// Blocked in a wait or a sleep that ends by itself after a while (the system call's name).
    case waitingWithLimit(String)
    /// In a loop that sleeps or waits a short while, wakes, and does it again (the system call's
    /// name): seen asleep at each look, but woken many times between looks.
    case wakingRepeatedly(String)
    /// Blocked in another system call (its number).
    case otherCall(Int)
    /// The thread has ended, or this platform cannot tell.
    case unknown

    public var description: String {
        switch self {
        case .running: "running"
        case .waitingWithoutLimit(let call): "waiting with no time limit (\(call))"
        case .waitingWithLimit(let call): "waiting with a time limit (\(call))"
        case .wakingRepeatedly(let call): "waking up again and again, to sleep a little each time (\(call))"
        case .otherCall(let number): "in system call \(number)"
        case .unknown: "unknown"
        }
    }

    /// A thread as the kernel names it, for `of(_:)`: take it on the thread itself.
    public struct KernelThread: Sendable, Hashable {
        /// "1234/task/1240": the process and the thread, as `/proc/thread-self` says.
        let path: String

        /// The calling thread; nil where there is no `/proc` (Darwin).
        public static var current: KernelThread? {
            #if os(Linux)
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")).map(KernelThread.init)
            #else
                nil
            #endif
        }
    }

    /// What `thread` is doing now.
    public static func of(_ thread: KernelThread) -> ThreadActivity {
        #if os(Linux)
            guard let text = try? String(contentsOfFile: "/proc/\(thread.path)/syscall", encoding: .utf8) else {
                return .unknown
            }
            let fields = text.split(whereSeparator: \.isWhitespace)
            guard let first = fields.first else { return .unknown }
            if first == "running" { return .running }
            guard let number = Int(first), number >= 0 else { return .otherCall(-1) }
            // fields[1...6]: the call's six arguments, in hexadecimal.
            let argument = { (index: Int) -> UInt64 in
                fields.count > index + 1 ? UInt64(fields[index + 1].dropFirst(2), radix: 16) ?? 0 : 0
            }
            switch number {
            case Calls.futex:
                // futex(address, operation, value, timeout, …): the wait operations take a
                // timeout, none when it is null.
                return argument(3) == 0 ? .waitingWithoutLimit("futex") : .waitingWithLimit("futex with a timeout")
            case Calls.nanosleep: return .waitingWithLimit("nanosleep")
            case Calls.clockNanosleep: return .waitingWithLimit("clock_nanosleep")
            default: return .otherCall(number)
            }
        #else
            return .unknown
        #endif
    }

    /// How many times `thread` has blocked and woken up so far (its voluntary context switches,
    /// from `/proc/self/task/<tid>/status`); nil where that cannot be read.
    public static func wakeups(_ thread: KernelThread) -> Int? {
        #if os(Linux)
            guard let text = try? String(contentsOfFile: "/proc/\(thread.path)/status", encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") })
            else { return nil }
            return Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
        #else
            return nil
        #endif
    }

    #if os(Linux)
        /// The numbers of the system calls that waits and sleeps make.
        private enum Calls {
            #if arch(x86_64)
                static let futex = 202
                static let nanosleep = 35
                static let clockNanosleep = 230
            #elseif arch(arm64)
                static let futex = 98
                static let nanosleep = 101
                static let clockNanosleep = 115
            #else
                static let futex = -2
                static let nanosleep = -2
                static let clockNanosleep = -2
            #endif
        }
    #endif

    /// Whether this platform tells waits apart (Linux, x86_64 or arm64).
    public static var tellsWaitsApart: Bool {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
            KernelThread.current.map { of($0) != .unknown } ?? false
        #else
            false
        #endif
    }

    /// What `thread` settles into: samples it every 10 ms until it is seen blocked the same way
    /// `times` times in a row, or running without a pause for `runningFor` seconds (a loop; a
    /// thread that is only late to reach its wait, on a busy machine, gets there sooner). Each
    /// bound is stretched under a sanitizer (`boundStretch`). `.unknown` where the platform
    /// cannot tell, or if `stop()` becomes true first (the thread did something else: returned).
    /// A thread that never settles (a loop that sleeps a little each turn) is judged after
    /// `within` seconds by what it was seen doing most often. A thread seen in a wait with a time
    /// limit each time, but woken more than `times` times while it was watched, is
    /// `.wakingRepeatedly`: a loop, not one long wait.
    public static func settled(
        _ thread: KernelThread, times: Int = 5, runningFor: Double = 2, within: Double = 5,
        stop: () -> Bool = { false }
    ) -> ThreadActivity {
        var last = ThreadActivity.unknown
        var repeats = 0
        var runningSince: Date?
        var seen: [ThreadActivity] = []
        var firstWakeups: Int?
        let deadline = Date(timeIntervalSinceNow: within * boundStretch)
        while !stop() {
            guard Date() < deadline else {
                let counts = Dictionary(grouping: seen, by: \.description)
                return counts.max { $0.value.count < $1.value.count }?.value.first ?? .unknown
            }
            let now = of(thread)
            seen.append(now)
            switch now {
            case .unknown:
                return .unknown
            case .running:
                let since = runningSince ?? Date()
                runningSince = since
                if Date().timeIntervalSince(since) >= runningFor * boundStretch { return .running }
            default:
                runningSince = nil
                if now != last { firstWakeups = wakeups(thread) }
                repeats = now == last ? repeats + 1 : 1
                if repeats >= times {
                    guard case .waitingWithLimit(let call) = now, let first = firstWakeups,
                        let latest = wakeups(thread), latest - first > times
                    else { return now }
                    return .wakingRepeatedly(call)
                }
            }
            last = now
            Thread.sleep(forTimeInterval: 0.01)
        }
        return .unknown
    }
}
