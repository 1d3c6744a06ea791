import Foundation
import Testing

/// Chapter 3's README promises a base that reads top to bottom in one short file, and quotes its
/// budget: this check makes the quoted number true of the file, so that it is never typed twice.
@Suite("The finished base stays within the budget chapter 3's README quotes")
struct BaseBudgetTests {
    @Test("AsyncOperation.swift has at most as many lines as chapter 3's README says")
    func baseFitsItsBudget() throws {
        let root = Transcript.packageRoot
        let readme = try String(
            contentsOf: root.appendingPathComponent("Chapters/03-Cancellation/README.md"), encoding: .utf8)
        let quoted = try #require(
            readme.firstMatch(of: /AsyncOperation\.swift`?\]\([^)]*\),\s+of at most (\d+) lines/),
            "chapter 3's README no longer says \"AsyncOperation.swift …, of at most N lines\"")
        let budget = try #require(Int(quoted.output.1))
        let base = try String(
            contentsOf: root.appendingPathComponent("Chapters/03-Cancellation/AsyncOperations/AsyncOperation.swift"),
            encoding: .utf8)
        let lines = base.split(separator: "\n", omittingEmptySubsequences: false).count - (base.hasSuffix("\n") ? 1 : 0)
        #expect(
            lines <= budget, "AsyncOperation.swift has \(lines) lines; chapter 3's README promises at most \(budget)")
    }
}
