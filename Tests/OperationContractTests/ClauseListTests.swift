import Foundation
import OperationContract
import Testing

/// One clause, one definition: the kit's list of clauses (`ContractClause.allCases`) is the one
/// list, and each page of its documentation that lists the clauses lists exactly those, in order.
@Suite("OperationContract's documentation lists exactly the kit's clauses")
struct ClauseListTests {
    static let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../Chapters/OperationContract/OperationContract/OperationContract.docc"
    ).standardizedFileURL

    /// Each page, and how a line of it names a clause.
    static let pages: [(file: String, marker: String)] = [
        ("TheContract.md", "- term ``ContractClause/"),  // the contract, clause by clause
        ("ContractClause.md", "- ``"),  // the topics of ContractClause's page
        ("CheckedVersions.md", ". ``ContractClause/"),  // the table's numbered columns
    ]

    @Test("each page lists every clause once, in the kit's order", arguments: pages.map(\.file))
    func page(_ file: String) throws {
        let marker = try #require(Self.pages.first { $0.file == file }?.marker)
        let text = try String(contentsOf: Self.catalog.appendingPathComponent(file), encoding: .utf8)
        let listed = text.components(separatedBy: "\n").compactMap { line -> String? in
            guard let range = line.range(of: marker) else { return nil }
            let name = String(line[range.upperBound...].prefix { $0 != "`" })
            return ContractClause(rawValue: name) != nil ? name : nil
        }
        #expect(listed == ContractClause.allCases.map(\.rawValue), "\(file)")
    }

    @Test("each clause's name is the one it is found by")
    func names() {
        for clause in ContractClause.allCases {
            #expect(ContractClause(rawValue: clause.rawValue) == clause)
            #expect("\(clause)" == clause.rawValue)
        }
        #expect(Set(ContractClause.allCases.map(\.rawValue)).count == ContractClause.allCases.count)
    }
}
