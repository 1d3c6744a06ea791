import Foundation
import OperationContract

/// The table of `CheckedVersions.md`, in the kit's documentation: what the kit finds in each
/// version, read so that a test can hold the kit's real verdicts against it.
struct VersionTable {
    /// One cell: the verdict measured on Linux, and the one expected on a Mac.
    struct Cell: Equatable {
        enum Mark: String {
            case passes = "✔"
            case fails = "✘"
            case notChecked = "–"
            /// Fails when a race lands; some runs pass.
            case racy = "✘?"
            /// Not known (a Mac's verdict where Linux cannot check the clause).
            case unknown = "?"
        }

        let linux: Mark
        let mac: Mark

        /// The mark of the platform the tests run on.
        var here: Mark {
            #if canImport(ObjectiveC)
                mac
            #else
                linux
            #endif
        }

        /// Whether `verdict` is what the cell says.
        func accepts(_ verdict: ClauseVerdict) -> Bool {
            switch here {
            case .passes: verdict == .passed
            case .fails: verdict == .failed
            case .notChecked: verdict == .notChecked
            case .racy: verdict == .failed || verdict == .passed
            case .unknown: true
            }
        }

        /// "✔", "✘ (Mac ✔)", "✘? (Mac ✘)".
        init?(_ text: String) {
            let parts = text.split(separator: "(", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let linux = Mark(rawValue: parts[0]) else { return nil }
            self.linux = linux
            if parts.count == 2 {
                let mac = parts[1].dropLast().replacingOccurrences(of: "Mac ", with: "")
                guard parts[1].hasSuffix(")"), let mark = Mark(rawValue: mac) else { return nil }
                self.mac = mark
            } else {
                self.mac = linux
            }
        }
    }

    /// The clauses, in the order of the table's columns.
    let clauses: [ContractClause]
    /// The cells of each row, by the text of its first column.
    let rows: [String: [Cell]]
    /// The rows' first columns, in order.
    let labels: [String]

    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../Chapters/OperationContract/OperationContract/OperationContract.docc/CheckedVersions.md"
    ).standardizedFileURL

    /// Reads the table under the heading `### <section>`; throws, naming the line, if it cannot.
    static func read(section: String = "The table") throws -> VersionTable {
        let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
        // "3. ``ContractClause/workEndingAtOnce``": the clause of column 3.
        let clauses = lines.compactMap { line -> ContractClause? in
            guard let range = line.range(of: "``ContractClause/"), line.first?.isNumber == true else { return nil }
            return ContractClause(rawValue: String(line[range.upperBound...].prefix { $0 != "`" }))
        }
        guard let heading = lines.firstIndex(of: "### \(section)") else { throw TableError("no section \(section)") }
        let body = lines[(heading + 1)...].prefix { !$0.hasPrefix("### ") }
        var rows: [String: [Cell]] = [:]
        var labels: [String] = []
        for line in body where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == clauses.count + 2 else { throw TableError("a row with \(cells.count) cells: \(line)") }
            let parsed = cells.dropFirst(2).compactMap(Cell.init)
            guard parsed.count == clauses.count else { throw TableError("a cell that is not a mark: \(line)") }
            rows[cells[0]] = parsed
            labels.append(cells[0])
        }
        return VersionTable(clauses: clauses, rows: rows, labels: labels)
    }
}

struct TableError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
