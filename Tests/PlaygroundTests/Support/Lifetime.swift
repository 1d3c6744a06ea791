/// A weak reference to an object the test has released, to check that nothing else keeps it.
final class WeakReference {
    weak var object: AnyObject?

    /// True once the object is freed, false if it is still alive after `seconds`.
    ///
    /// Foundation may hold a finished operation for a moment (its queue releases it after the
    /// completion block is sent off), so this looks again every few milliseconds rather than
    /// once.
    func isFreed(within seconds: Double = 5) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while object != nil {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
