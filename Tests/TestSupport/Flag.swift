import AsyncOperations
import Dispatch
import Foundation

/// A one-shot event that async tests await with a deadline instead of blocking a thread.
///
/// Swift Testing runs tests on the cooperative thread pool (one thread per core); a test
/// that blocks one of those threads can starve every other test and Dispatch's global
/// queues. Awaiting a `Flag` suspends the test instead.
public final class Flag: Sendable {
    private struct State {
        var raised = false
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Locked(State())

    public init() {}

    public var isRaised: Bool { state.withLock { $0.raised } }

    /// Raises the flag and wakes every waiter; raising it again does nothing.
    public func raise() {
        let waiters = state.withLock { state in
            state.raised = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// True as soon as the flag is raised; false if `seconds` (times `boundStretch`) pass first.
    public func wait(seconds: Double = 10) async -> Bool {
        let seconds = seconds * boundStretch
        return await withCheckedContinuation { continuation in
            let id: UInt64? = state.withLock { state in
                if state.raised { return nil }
                state.nextWaiter += 1
                state.waiters[state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let id else { return continuation.resume(returning: true) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                self.state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
            }
        }
    }
}

/// Lines recorded by several threads, in the order they arrived.
public final class EventLog: Sendable {
    private let lines = Locked<[String]>([])

    public init() {}

    public var events: [String] { lines.withLock { $0 } }

    @Sendable public func record(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    /// A reporter for an operation: records every line, and raises `flag` when `line` arrives.
    public func recorder(raising flag: Flag, at line: String) -> @Sendable (String) -> Void {
        { reported in
            self.record(reported)
            if reported == line { flag.raise() }
        }
    }
}

/// How much longer every bounded wait of the tests is: 4 under ThreadSanitizer or
/// AddressSanitizer, else 1.
///
/// A bound only decides when a broken version fails. Under ThreadSanitizer on a 2-core machine
/// everything runs several times slower, the exit tests' children too; AddressSanitizer slows
/// a run less, but the same way. Looked up on Linux only (the runtimes define `__tsan_init` and
/// `__asan_init`); on Darwin, 1.
public let boundStretch: Double = {
    #if os(Linux)
        return dlsym(nil, "__tsan_init") != nil || dlsym(nil, "__asan_init") != nil ? 4 : 1
    #else
        return 1
    #endif
}()
