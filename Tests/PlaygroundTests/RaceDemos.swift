import Foundation
import TestSupport
import Testing

/// Deliberately racy code from the popular articles, run to show that ThreadSanitizer finds
/// the race. Skipped unless RACE_DEMOS=1: their races would fail CI's ThreadSanitizer run, and
/// without ThreadSanitizer they can corrupt memory and crash the test process.
/// `Scripts/race-demos` runs them under ThreadSanitizer and succeeds only if it reports a
/// race. Each chapter adds its demos in an extension of this suite; the fixed code runs the
/// same scenario in the chapter's own, always-enabled tests.
@Suite(
    "Race demos (RACE_DEMOS=1, under ThreadSanitizer: Scripts/race-demos)",
    .enabled(if: ProcessInfo.processInfo.environment["RACE_DEMOS"] == "1", "set RACE_DEMOS=1 to run the race demos")
)
struct RaceDemos {}
