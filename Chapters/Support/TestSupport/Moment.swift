import Foundation

extension Flag {
    /// True if the flag is raised within `seconds`, false after them — not stretched under a
    /// sanitizer, unlike `wait(seconds:)`.
    ///
    /// For a check that something must *not* happen within a moment (an operation that must not
    /// finish while its work is held): every correct answer waits the whole moment, so it stays
    /// short everywhere. Such a window is a second net, for a mistake that lands a moment later
    /// (a finish sent off with a short delay); what can be caught at once is checked at once.
    public func raised(withinAMoment seconds: Double) async -> Bool {
        if isRaised { return true }
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !isRaised && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        return isRaised
    }
}
