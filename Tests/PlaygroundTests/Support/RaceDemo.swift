import Foundation
import TestSupport
import Testing

extension Trait where Self == ConditionTrait {
    /// For a race demo: a suite of deliberately racy code from an article, which exists to show
    /// that ThreadSanitizer finds its race. Each such suite's name ends in `RaceDemos`.
    ///
    /// Skipped unless RACE_DEMOS=1: the races would fail CI's ThreadSanitizer run, and without
    /// ThreadSanitizer they can corrupt memory and crash the test process. `Scripts/race-demos`
    /// runs every `…RaceDemos` suite under ThreadSanitizer and succeeds only if it reports each
    /// race. The fixed code runs the same scenario in its chapter's own, always-enabled tests.
    static var raceDemo: Self {
        .enabled(
            if: ProcessInfo.processInfo.environment["RACE_DEMOS"] == "1",
            "a race demo: set RACE_DEMOS=1 and run it under ThreadSanitizer (Scripts/race-demos)")
    }
}

extension Trait where Self == ConditionTrait {
    /// For a test that runs an article's racy code to show another of its bugs: under
    /// ThreadSanitizer it would report the article's race, which `demo` (a race demo) shows, as if
    /// it were the package's. So the test does not run under ThreadSanitizer; every other run has it.
    static func racesByDesign(shownBy demo: String) -> Self {
        .disabled(
            if: Sanitizer.thread,
            "runs an article's racy code: ThreadSanitizer would report its race, which \(demo) shows")
    }
}
