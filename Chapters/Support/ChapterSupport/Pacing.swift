import Dispatch
import Foundation

/// Delays that pace a chapter for a human watching `swift run chapterN`.
///
/// Pacing never decides an order: every order a chapter prints is caused by dependencies,
/// completion or a held queue. That is why the tests can run the chapters with
/// `CHAPTER_PACING=0` and still see the same lines, only faster.
public enum Pacing {
    /// Multiplies every pacing delay. `CHAPTER_PACING=0` removes them; unset means 1.
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["CHAPTER_PACING"] else { return 1 }
        return max(0, Double(text) ?? 1)
    }()

    /// A pacing delay of `seconds`, scaled by `scale`.
    public static func delay(_ seconds: Double) -> DispatchTimeInterval {
        .microseconds(Int(seconds * scale * 1_000_000))
    }
}
