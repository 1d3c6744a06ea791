import AsyncOperations
import Foundation
import OperationContract

/// A one-shot event that async tests await with a bound instead of blocking a thread.
///
/// Swift Testing runs tests on the cooperative thread pool (one thread per core); a test
/// that blocks one of those threads can starve every other test and Dispatch's global
/// queues. Awaiting a `Flag` suspends the test instead. It is the contract kit's `Signal`,
/// whose waits the tests share, with every bound stretched under a sanitizer.
///
/// Two kinds of waits: `wait(seconds:)` for what must happen, whose bound only ends the wait
/// of a broken version, and so goes on past the bound while the process still works
/// (`ProcessActivity`); and `staysLowered(for:)` for what must not happen, a window that a
/// correct version never needs and that ends on time.
public final class Flag: Sendable {
    private let signal = Signal()
    /// Waits whose bound has passed: raised with the flag.
    private let lateWaits = Locked<[Signal]>([])

    public init() {}

    public var isRaised: Bool { signal.isRaised }

    /// Raises the flag and wakes every waiter; raising it again does nothing.
    public func raise() {
        signal.raise()
        let late = lateWaits.withLock { waits in
            defer { waits = [] }
            return waits
        }
        for wait in late { wait.raise() }
    }

    /// True as soon as the flag is raised; false once `seconds` (times `boundStretch`) have
    /// passed and the process has been quiet since (a correct version on a loaded machine is
    /// late, not lost), or at `ProcessActivity.capFactor` times the bound.
    public func wait(seconds: Double = 10) async -> Bool {
        let bound = seconds * boundStretch
        if await signal.wait(seconds: bound) { return true }
        let wake = Signal()
        lateWaits.withLock { $0.append(wake) }
        return await waitedPastTheBound(bound, wake: wake) { signal.isRaised }
    }

    /// True if the flag is still lowered once `seconds` (times `boundStretch`) have passed:
    /// for a check that something does not happen. On time, whatever the load: a correct
    /// version never raises the flag, so the window only decides for a broken one.
    public func staysLowered(for seconds: Double) async -> Bool {
        !(await signal.wait(seconds: seconds * boundStretch))
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
/// AddressSanitizer, else 1, as for the contract kit's.
///
/// A bound only decides when a broken version fails. Under ThreadSanitizer on a 2-core machine
/// everything runs several times slower, the exit tests' children too; AddressSanitizer slows
/// a run less, but the same way (`Sanitizer`: looked up on Linux only).
public let boundStretch: Double = ProcessSanitizer.stretch
