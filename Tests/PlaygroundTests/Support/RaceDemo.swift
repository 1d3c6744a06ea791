import Foundation
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
