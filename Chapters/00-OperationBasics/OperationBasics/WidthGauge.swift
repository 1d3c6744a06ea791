import Foundation

/// How many operations ran at once, at most: `measure` wraps each operation's work.
public final class WidthGauge: @unchecked Sendable {
    // @unchecked Sendable: `running` and `highest` are only touched inside `lock`.
    private let lock = NSLock()
    private var running = 0
    private var highest = 0

    public init() {}

    public func measure(_ work: () -> Void) {
        lock.withLock {
            running += 1
            highest = max(highest, running)
        }
        work()
        lock.withLock { running -= 1 }
    }

    /// The most operations that were running at the same time.
    public var most: Int { lock.withLock { highest } }
}
