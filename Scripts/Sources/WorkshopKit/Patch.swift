/// A change to a text, as a unified diff: how a wrong answer or an alternative differs from its
/// exercise's reference solution. The solution is the one source of truth; each variant holds
/// only its own change, so that a line shared by all of them is written once.
///
/// The lines before the diff (before the first "--- ") are the variant's header ("Wrong
/// answer: …", "Caught by: …"), kept as they are. A hunk applies where its old lines (context
/// and removed lines) match the text exactly: at the line it names, or else the nearest place
/// after the previous hunk — so an edit elsewhere in the solution leaves it applicable, and an
/// edit of the lines it changes makes `verify` say that it no longer applies.
public struct Patch: Equatable, Sendable {
    public struct Hunk: Equatable, Sendable {
        /// The line (1-based) of the old text where the hunk's old lines start.
        public var oldStart: Int
        /// Each line with its mark: " " context, "-" removed, "+" added.
        public var lines: [Line]

        public struct Line: Equatable, Sendable {
            public var mark: Character
            public var text: String
        }

        var old: [String] { lines.filter { $0.mark != "+" }.map(\.text) }
        var new: [String] { lines.filter { $0.mark != "-" }.map(\.text) }
    }

    /// The lines before the diff.
    public var header: [String]
    public var hunks: [Hunk]

    /// Reads a patch: the header lines, then "--- …", "+++ …" and the hunks ("@@ -a,b +c,d @@").
    public init(_ text: String) throws {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("--- ") }),
            start + 1 < lines.count, lines[start + 1].hasPrefix("+++ ")
        else {
            throw WorkshopError("no diff in it (a `--- ` line, then `+++ `, then hunks)")
        }
        header = Array(lines[..<start])
        hunks = []
        for line in lines[(start + 2)...] {
            if line.hasPrefix("@@") {
                guard let start = Self.oldStart(in: line) else {
                    throw WorkshopError("a hunk header it cannot read: \(line)")
                }
                hunks.append(Hunk(oldStart: start, lines: []))
            } else if let mark = line.first, [" ", "-", "+"].contains(mark), !hunks.isEmpty {
                hunks[hunks.count - 1].lines.append(.init(mark: mark, text: String(line.dropFirst())))
            } else if line.isEmpty, !hunks.isEmpty {
                // An editor may strip the space of an empty context line.
                hunks[hunks.count - 1].lines.append(.init(mark: " ", text: ""))
            } else if line.hasPrefix("\\") {
                continue  // "\ No newline at end of file"
            } else if !line.isEmpty {
                throw WorkshopError("a line it cannot read in a hunk: \(line)")
            }
        }
        // Empty lines after the last hunk are the file's end, not context.
        while let last = hunks.last?.lines.last, last.mark == " ", last.text.isEmpty,
            hunks[hunks.count - 1].old.count > Self.declaredOldCount(hunks.count - 1, in: lines)
        {
            hunks[hunks.count - 1].lines.removeLast()
        }
        guard !hunks.isEmpty else { throw WorkshopError("a diff without a hunk") }
    }

    /// `text` with the change applied; throws, naming the hunk, where its old lines are not found.
    public func apply(to text: String) throws -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var shift = 0  // lines added minus lines removed so far
        var floor = 0  // the first line a hunk may still touch
        for (number, hunk) in hunks.enumerated() {
            let old = hunk.old
            let expected = max(hunk.oldStart - 1 + shift, floor)
            guard let at = Self.find(old, in: lines, near: expected, from: floor) else {
                let first = old.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
                throw WorkshopError(
                    "its change \(number + 1) of \(hunks.count) (near line \(hunk.oldStart): \"\(first.trimmingCharacters(in: .whitespaces))\") no longer matches the solution"
                )
            }
            lines.replaceSubrange(at..<(at + old.count), with: hunk.new)
            shift += hunk.new.count - old.count
            floor = at + hunk.new.count
        }
        return lines.joined(separator: "\n")
    }

    /// Where `block` starts in `lines`, at or after `floor`: the match nearest `expected`.
    static func find(_ block: [String], in lines: [String], near expected: Int, from floor: Int) -> Int? {
        let last = lines.count - block.count
        guard last >= floor else { return nil }
        func matches(_ start: Int) -> Bool {
            start >= floor && start <= last && lines[start..<(start + block.count)].elementsEqual(block)
        }
        for distance in 0...max(lines.count, 1) {
            if matches(expected - distance) { return expected - distance }
            if matches(expected + distance) { return expected + distance }
        }
        return nil
    }

    /// 12 from "@@ -12,7 +12,9 @@".
    static func oldStart(in header: String) -> Int? {
        guard let minus = header.firstIndex(of: "-") else { return nil }
        return Int(header[header.index(after: minus)...].prefix { $0.isNumber })
    }

    /// The old line count that hunk `index`'s header declares ("@@ -12,7 …": 7), if it says.
    static func declaredOldCount(_ index: Int, in lines: [String]) -> Int {
        let headers = lines.filter { $0.hasPrefix("@@") }
        guard index < headers.count, let comma = headers[index].firstIndex(of: ",") else { return .max }
        return Int(headers[index][headers[index].index(after: comma)...].prefix { $0.isNumber }) ?? .max
    }
}
