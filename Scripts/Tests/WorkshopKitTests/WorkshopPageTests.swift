import Foundation
import Testing
import WorkshopKit

/// The workshop's times are written in three places: the session table of the workshop's page
/// (Chapters/Workshop/README.md), each chapter README's exercise, and the top README. They
/// must add up and agree.
@Suite("Workshop — the session's times add up everywhere they are written")
struct WorkshopPageTests {
    struct Row {
        let number: Int
        let chapter: Int
        let exercise: Int
        let total: Int
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOf: Fixture.root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The text with every line break as a space: prose wraps anywhere.
    static func prose(_ path: String) throws -> String {
        try read(path).replacingOccurrences(of: "\n", with: " ")
    }

    /// The table's rows: "| 2 | [..](..) | .. | 5 min | 10 min | 15 min |", and its two total
    /// rows: "| | **Exercises 1 to 10** | | 50 min | 130 min | **180 min (3 h)** |".
    static func table() throws -> (rows: [Row], totals: [String: (chapter: Int, exercise: Int, total: Int)]) {
        var rows: [Row] = []
        var totals: [String: (Int, Int, Int)] = [:]
        for line in try read("Chapters/Workshop/README.md").split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            let minutes = cells.compactMap { cell -> Int? in
                let text = cell.replacingOccurrences(of: "*", with: "")
                guard let range = text.range(of: " min") else { return nil }
                return Int(text[..<range.lowerBound])
            }
            guard minutes.count == 3 else { continue }
            if let number = Int(cells[0]) {
                rows.append(Row(number: number, chapter: minutes[0], exercise: minutes[1], total: minutes[2]))
            } else {
                totals[cells[1].replacingOccurrences(of: "*", with: "")] = (minutes[0], minutes[1], minutes[2])
            }
        }
        return (rows, totals)
    }

    @Test("each row and each total of the session table adds up")
    func tableAddsUp() throws {
        let (rows, totals) = try Self.table()
        let numbers = try Workshop(root: Fixture.root).exercises.map(\.number)
        let last = try #require(numbers.last)
        #expect(rows.map(\.number) == numbers, "one row per exercise folder")
        for row in rows { #expect(row.chapter + row.exercise == row.total, "exercise \(row.number)") }
        for (name, range) in [("Exercises 1 to \(last)", 1...last), ("Exercises 0 to \(last)", 0...last)] {
            let total = try #require(totals[name], "the table has no row \(name)")
            let included = rows.filter { range.contains($0.number) }
            #expect(total.chapter == included.map(\.chapter).reduce(0, +), "\(name): chapters")
            #expect(total.exercise == included.map(\.exercise).reduce(0, +), "\(name): exercises")
            #expect(total.total == included.map(\.total).reduce(0, +), "\(name): total")
        }
    }

    @Test("the top README gives the table's total")
    func proseAgrees() throws {
        let (rows, totals) = try Self.table()
        let last = try #require(rows.last?.number)
        let session = try #require(totals["Exercises 1 to \(last)"]).total
        #expect(
            try Self.prose("README.md").contains(
                "A session of exercises 1 to \(last) takes about \(Self.hours(session))"))
    }

    @Test("each chapter's README gives its exercise the table's time")
    func chaptersAgree() throws {
        let (rows, _) = try Self.table()
        let workshop = try Workshop(root: Fixture.root)
        for exercise in workshop.exercises {
            let readme = try String(contentsOf: exercise.chapterReadme, encoding: .utf8)
            let row = try #require(rows.first { $0.number == exercise.number })
            let marker = "**Exercise \(exercise.number)** (about "
            let stated = readme.range(of: marker).flatMap { Int(readme[$0.upperBound...].prefix { $0.isNumber }) }
            #expect(stated == row.exercise, "Chapters/\(exercise.folder)/README.md: its exercise's minutes")
        }
    }

    /// 180 → "3 h", 190 → "3 h 10 min".
    static func hours(_ minutes: Int) -> String {
        minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }
}
