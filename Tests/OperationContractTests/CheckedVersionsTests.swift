import ContractSubjects
import Foundation
import OperationContract
import TestSupport
import Testing

/// The kit, run on every version of an operation that the chapters run, must give exactly the
/// verdicts of the table in its documentation (`CheckedVersions.md`): the bugs each chapter
/// shows, and no others. Each version is checked in a process of its own, `contract-checks`:
/// the popular versions' failures leave threads blocked and operations that never finish (which
/// the kit keeps for good), and the posts' operations print "Starting".
@Suite("OperationContract on the chapters' versions: the table in its documentation")
struct CheckedVersionsTests {
    @Test("the tables have a row for every version and base, and a column for every clause, in the kit's order")
    func tableCoversEverything() throws {
        let table = try VersionTable.read()
        #expect(table.clauses == ContractClause.allCases)
        #expect(table.labels == CheckedVersion.allCases.map(\.label))
        #expect(try VersionTable.read(section: Self.appBases).labels == AppBase.allCases.map(\.label))
    }

    /// The heading of the table of bases from apps and libraries.
    static let appBases = "Bases from apps and libraries"

    #if os(macOS) || os(Linux)
        @Test(
            "the package's own bases keep the contract",
            arguments: [CheckedVersion.asyncOperation, .completionOperation, .taskOperation, .asyncResultOperation])
        func packageBase(_ version: CheckedVersion) async throws {
            let child = try await ContractChild.run(["version", version.rawValue])
            #expect(child.status == 0 && !child.verdicts.values.contains(.failed), "\(child.report)")
            try expectTable(version, child.verdicts, report: child.report)
        }

        /// Under ThreadSanitizer, the versions whose data races are their chapter's point are left
        /// out: the sanitizer would report them (Scripts/race-demos shows them), as it should.
        static let popularVersions: [CheckedVersion] = [
            .syncOnly, .concurrentSolutionsBase, .asyncAwaitBase, .manualState, .fileUploadCancel,
            .everythingToKnowBase, .asyncAwaitTask, .swiftGenericsResult,
        ].filter { !(Sanitizer.thread && $0.racesByDesign) }

        @Test("each popular version fails exactly the clauses its chapter shows", arguments: popularVersions)
        func popularVersion(_ version: CheckedVersion) async throws {
            // A patience of one second: a bound that decides only when a broken version fails.
            let child = try await ContractChild.run(["--patience", "1", "version", version.rawValue], patience: 1)
            #expect(
                child.status == 0,
                "contract-checks ended with status \(String(describing: child.status))\n\(child.report)")
            try expectTable(version, child.verdicts, report: child.report)
            if version == .everythingToKnowBase { try expectLandingPageReport(in: ReportLines.report(in: child.lines)) }
        }

        @Test(
            "each base from an app or a library gets the verdicts of its row",
            arguments: AppBase.allCases.filter { !(Sanitizer.thread && $0.racesByDesign) })
        func appBase(_ base: AppBase) async throws {
            let child = try await ContractChild.run(["--patience", "1", "base", base.rawValue], patience: 1)
            #expect(
                child.status == 0,
                "contract-checks ended with status \(String(describing: child.status))\n\(child.report)")
            try expectTable(base.label, child.verdicts, report: child.report, section: Self.appBases)
        }
    #endif

    /// Checks `verdicts` against the table's row for `version`.
    private func expectTable(_ version: CheckedVersion, _ verdicts: [ContractClause: ClauseVerdict], report: String)
        throws
    {
        try expectTable(version.label, verdicts, report: report)
    }

    /// Checks `verdicts` against the row `label` of the table in `section`.
    private func expectTable(
        _ label: String, _ verdicts: [ContractClause: ClauseVerdict], report: String, section: String = "The table"
    ) throws {
        let table = try VersionTable.read(section: section)
        let row = try #require(table.rows[label], "no row \(label) in \(VersionTable.file.path)")
        for (clause, cell) in zip(table.clauses, row) {
            let verdict = verdicts[clause]
            #expect(
                verdict.map(cell.accepts) == true,
                """
                \(label), \(clause): the kit says \(verdict.map(\.description) ?? "nothing"); \
                the table says \(cell.here.rawValue)
                \(report)
                """)
        }
    }

    /// The report that the documentation's landing page shows (a `…` line stands for lines left
    /// out; the seconds may differ) is what the kit prints for `EverythingToKnowPost.AsyncOperation`.
    private func expectLandingPageReport(in printed: [String]) throws {
        let page = VersionTable.file.deletingLastPathComponent().appendingPathComponent("OperationContract.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        let block = try #require(text.components(separatedBy: "```text\n").dropFirst().first)
        let shown = block.components(separatedBy: "\n```")[0].components(separatedBy: "\n")
        var remaining = printed.map(withoutSeconds)[...]
        for line in shown where line != "…" {
            guard let found = remaining.firstIndex(of: withoutSeconds(line)) else {
                Issue.record(
                    """
                    the landing page shows a line the kit does not print (in that order): \(line)
                    the kit printed:
                    \(printed.joined(separator: "\n"))
                    """)
                return
            }
            remaining = remaining[(found + 1)...]
        }
    }

    /// A report's line with its seconds ("checked in 1.1 s") left out, and the folder of a
    /// file URL ("file:///…/Chapters/…"), which depends on the checkout.
    private func withoutSeconds(_ line: String) -> String {
        var line = line
        if let url = line.range(of: "file://"), let chapters = line[url.upperBound...].range(of: "/Chapters/") {
            line.replaceSubrange(url.upperBound..<chapters.lowerBound, with: "/…")
        }
        if let range = line.range(of: ", checked in ") { line = String(line[..<range.lowerBound]) }
        // The kit's waits are longer under a sanitizer ("0.05 s later" becomes "0.2 s later").
        return line.replacing(/\d+(\.\d+)? s\b/, with: "… s")
    }
}
