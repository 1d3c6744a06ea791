import Foundation

/// Two flags behind a lock, and the getters the queue reads. The subclasses set the flags.
///
/// Chapter 2's ways to get it wrong are each a runnable operation, so that a test can show what
/// happens; `ManualStateOperation` is the version that gets them right. Two of them,
/// `NotifyingUnderLockOperation` and `SilentFinishOperation`, share these flags and differ from
/// the right version only in how they announce the change. (`open`, as is `isFinished`: a test
/// subclass watches who reads the flag.)
open class LockedFlagsOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: `executing` and `finished` are read and written under `lock`.
    let lock = NSLock()
    var executing = false
    var finished = false

    public override var isAsynchronous: Bool { true }
    public override var isExecuting: Bool { lock.withLock { executing } }
    open override var isFinished: Bool { lock.withLock { finished } }

    /// Announces the change with both calls: on Darwin, key-value observing notifies
    /// observers only of a `didChangeValue` that a `willChangeValue` came before.
    func markExecuting() {
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
    }
}
