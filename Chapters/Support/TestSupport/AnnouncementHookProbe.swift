#if os(Linux)
    import Foundation

    /// An operation that announces once, to see whether announcements reach
    /// `AnnouncementHooks` (its `installed`). In a file of its own: a call from the file that
    /// defines the hooks would be resolved by the compiler, not the linker.
    // kvo pairs checked by hand: the probe's lone willChangeValue is never observed; it only
    // tells whether the hooks see announcements at all.
    final class HookProbe: Operation, @unchecked Sendable {
        // @unchecked Sendable: no state.
        static func announce() {
            HookProbe().willChangeValue(forKey: "probe")
        }
    }
#endif
