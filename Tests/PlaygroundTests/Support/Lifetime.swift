import TestSupport

/// A weak reference to an object the test has released, to check that nothing else keeps it.
final class WeakReference {
    weak var object: AnyObject?

    /// True once the object is freed, false if it is still alive after `seconds` (and the
    /// process has been quiet since: `eventually`).
    ///
    /// Foundation may hold a finished operation for a moment (its queue releases it after the
    /// completion block is sent off), so this looks again every few milliseconds rather than
    /// once.
    func isFreed(within seconds: Double = 5) async -> Bool {
        await eventually(within: seconds) { object == nil }
    }

    /// True if the object is still alive once `seconds` (times `boundStretch`) have passed:
    /// for an object that something must keep alive.
    func staysAlive(for seconds: Double) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds * boundStretch)
        while ContinuousClock.now < deadline {
            if object == nil { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return object != nil
    }
}
