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
    struct Hunk: Equatable, Sendable {
        /// The line (1-based) of the old text where the hunk's old lines start, and how many it
        /// says there are.
        var oldStart: Int
        var oldCount: Int
        /// The lines it expects (context and removed), and those it puts in their place.
        var old: [String] = []
        var new: [String] = []
    }

    /// The lines before the diff.
    public var header: [String]
    var hunks: [Hunk] = []

    /// Reads a patch: the header lines, then "--- …", "+++ …" and the hunks ("@@ -a,b +c,d @@").
    public init(_ text: String) throws {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("--- ") }),
            start + 1 < lines.count, lines[start + 1].hasPrefix("+++ ")
        else {
            throw WorkshopError("no diff in it (a `--- ` line, then `+++ `, then hunks)")
        }
        header = Array(lines[..<start])
        for line in lines[(start + 2)...] {
            if line.hasPrefix("@@") {
                // "@@ -12,7 +12,9 @@", or "@@ -12 +12 @@" for one line.
                let old = line.dropFirst(4).prefix { $0 != " " }.split(separator: ",").map { Int($0) }
                guard line.hasPrefix("@@ -"), let first = old.first, let oldStart = first else {
                    throw WorkshopError("a hunk header it cannot read: \(line)")
                }
                hunks.append(Hunk(oldStart: oldStart, oldCount: old.count > 1 ? old[1] ?? 1 : 1))
            } else if !hunks.isEmpty, line.isEmpty || " -+".contains(line.first!) {
                // An editor may strip the space of an empty context line.
                let (mark, text) = (line.first ?? " ", String(line.dropFirst()))
                if mark != "+" { hunks[hunks.count - 1].old.append(text) }
                if mark != "-" { hunks[hunks.count - 1].new.append(text) }
            } else if !line.isEmpty, !line.hasPrefix("\\") {  // "\ No newline at end of file"
                throw WorkshopError("a line it cannot read in a hunk: \(line)")
            }
        }
        guard var last = hunks.popLast() else { throw WorkshopError("a diff without a hunk") }
        // Empty lines after the last hunk are the file's end, not context.
        while last.old.count > last.oldCount, last.old.last == "", last.new.last == "" {
            (last.old, last.new) = (last.old.dropLast(), last.new.dropLast())
        }
        hunks.append(last)
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
}
