import Foundation
import Testing

extension Trait where Self == ConditionTrait {
    /// For a test of the slow group, which `swift test` skips unless SLOW_TESTS=1: a test that
    /// runs the compiler on the package's sources (a second or more of processor time each), or
    /// a proof that must wait out a long time. CI runs the group in a stage of its own, and
    /// times it; Tests/README.md says which tests are in it and why.
    static var slow: Self {
        .enabled(
            if: ProcessInfo.processInfo.environment["SLOW_TESTS"] == "1",
            "in the slow group: SLOW_TESTS=1 swift test runs it too")
    }
}
