import Foundation

extension Transcript {
    /// A line-by-line diff of what a README expects and what the chapter printed, empty when
    /// they are equal. Each differing line shows once, with its line number in the README's
    /// block (`-`) or in the output (`+`); lines both have in common are left out, so one
    /// changed line makes a two-line diff however long the output is.
    static func diff(
        expected: [String], printed: [String], names: (expected: String, printed: String) = ("expected", "printed")
    ) -> String {
        // "- expected line 3: …" and "+ printed line 3:  …": the texts line up.
        let width = max(names.expected.count, names.printed.count)
        let expectedGap = String(repeating: " ", count: width - names.expected.count + 1)
        let printedGap = String(repeating: " ", count: width - names.printed.count + 1)
        // The longest common subsequence, by dynamic programming: the outputs are short.
        let e = expected.count
        let p = printed.count
        var common = [[Int]](repeating: [Int](repeating: 0, count: p + 1), count: e + 1)
        for i in stride(from: e - 1, through: 0, by: -1) {
            for j in stride(from: p - 1, through: 0, by: -1) {
                common[i][j] =
                    expected[i] == printed[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var lines: [String] = []
        var i = 0
        var j = 0
        while i < e || j < p {
            if i < e, j < p, expected[i] == printed[j] {
                i += 1
                j += 1
            } else if j < p, i == e || common[i][j + 1] >= common[i + 1][j] {
                lines.append("+ \(names.printed) line \(j + 1):\(printedGap)\(printed[j])")
                j += 1
            } else {
                lines.append("- \(names.expected) line \(i + 1):\(expectedGap)\(expected[i])")
                i += 1
            }
        }
        return lines.joined(separator: "\n")
    }
}
