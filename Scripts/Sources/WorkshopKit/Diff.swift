/// A unified diff of two texts, line by line, with `context` unchanged lines around each
/// change: what `solution` shows (the reference solution against the stub), with no diff tool.
public func unifiedDiff(from old: String, to new: String, oldName: String, newName: String, context: Int = 3)
    -> [String]
{
    let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    // The longest common subsequence, by dynamic programming: the files are a few dozen lines.
    var common = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in stride(from: a.count - 1, through: 0, by: -1) {
        for j in stride(from: b.count - 1, through: 0, by: -1) {
            common[i][j] = a[i] == b[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
        }
    }
    enum Edit {
        case same(String)
        case removed(String)
        case added(String)
    }
    var edits: [Edit] = []
    var (i, j) = (0, 0)
    while i < a.count || j < b.count {
        if i < a.count, j < b.count, a[i] == b[j] {
            edits.append(.same(a[i]))
            i += 1
            j += 1
        } else if j < b.count, i == a.count || common[i][j + 1] > common[i + 1][j] {
            edits.append(.added(b[j]))
            j += 1
        } else {
            edits.append(.removed(a[i]))
            i += 1
        }
    }
    let changed = edits.indices.filter { if case .same = edits[$0] { false } else { true } }
    guard !changed.isEmpty else { return [] }
    // Hunks: the changed lines with their context, merged where they touch.
    var hunks: [ClosedRange<Int>] = []
    for index in changed {
        let range = max(0, index - context)...min(edits.count - 1, index + context)
        if let last = hunks.last, range.lowerBound <= last.upperBound + 1 {
            hunks[hunks.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
        } else {
            hunks.append(range)
        }
    }
    var lines = ["--- \(oldName)", "+++ \(newName)"]
    for hunk in hunks {
        var oldStart = 1
        var newStart = 1
        for edit in edits[..<hunk.lowerBound] {
            switch edit {
            case .same: (oldStart, newStart) = (oldStart + 1, newStart + 1)
            case .removed: oldStart += 1
            case .added: newStart += 1
            }
        }
        var body: [String] = []
        var (oldCount, newCount) = (0, 0)
        for edit in edits[hunk] {
            switch edit {
            case .same(let line):
                body.append(" " + line)
                (oldCount, newCount) = (oldCount + 1, newCount + 1)
            case .removed(let line):
                body.append("-" + line)
                oldCount += 1
            case .added(let line):
                body.append("+" + line)
                newCount += 1
            }
        }
        lines.append("@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@")
        lines += body
    }
    return lines
}
