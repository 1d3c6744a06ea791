import Foundation

/// The ```swift blocks of the READMEs, and where each one is in the repository.
///
/// A block is the code that runs: its lines appear word for word, in order, in one Swift file of
/// the repository. What a reader may leave out of an excerpt:
/// - indentation, blank lines and comment-only lines (on both sides: a block may add a
///   comment, and skip the file's);
/// - the rest of a line, written `…` at its end (`guard case .pending = slots[index] else { …`);
/// - lines of the file, where a line of the block is only `…` (or `...`): the lines before it
///   and after it are each a run of consecutive lines of the file, the second after the first.
///
/// A block that must not compile is marked so, ```` ```swift does-not-compile ````, and followed by
/// a ```` ```text ```` block with what the compiler says of it, one line each: it is compiled
/// instead of looked for (`ReadmeCodeTests`).
enum ReadmeCode {
    /// The marker after ```` ```swift ```` of a block that must not compile.
    static let doesNotCompile = "does-not-compile"

    /// One line of a block, with its line number in the README.
    struct Line {
        let number: Int
        let text: String
    }

    /// A ```swift block of a README.
    struct Block {
        /// The README, relative to the package: "Chapters/07-ChainedOperations/README.md".
        let readme: String
        /// The line of its opening fence.
        let line: Int
        let lines: [Line]
        /// Marked `does-not-compile`.
        let mustNotCompile: Bool
        /// For a block that must not compile: the lines of the ```text block right after it.
        let compilerSays: [String]

        /// Its text, as a file of its own.
        var source: String { lines.map(\.text).joined(separator: "\n") + "\n" }
    }

    /// A Swift file of the repository, read.
    struct SourceFile {
        /// Relative to the package.
        let path: String
        /// Its code lines, trimmed, with their line numbers: no blank or comment-only line.
        let code: [Line]
    }

    // MARK: Reading

    /// The ```swift blocks of `text`, the README at `readme`.
    static func blocks(in text: String, readme: String) -> [Block] {
        let lines = text.components(separatedBy: "\n")
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            let fence = lines[index].trimmingCharacters(in: .whitespaces)
            guard fence.hasPrefix("```swift") else {
                index += 1
                continue
            }
            let marks = fence.dropFirst("```swift".count).split(separator: " ").map(String.init)
            var body: [Line] = []
            index += 1
            while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                body.append(Line(number: index + 1, text: lines[index]))
                index += 1
            }
            let opening = body.first.map { $0.number - 1 } ?? index
            index += 1  // the closing fence
            var says: [String] = []
            if marks.contains(doesNotCompile), index < lines.count,
                lines[index].trimmingCharacters(in: .whitespaces) == "```text"
            {
                index += 1
                while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                    says.append(lines[index].trimmingCharacters(in: .whitespaces))
                    index += 1
                }
                index += 1
            }
            blocks.append(
                Block(
                    readme: readme, line: opening, lines: body, mustNotCompile: marks.contains(doesNotCompile),
                    compilerSays: says.filter { !$0.isEmpty }))
        }
        return blocks
    }

    /// The code lines of `lines`, trimmed: no blank or comment-only line.
    static func code(of lines: [Line]) -> [Line] {
        lines.compactMap { line in
            let text = line.text.trimmingCharacters(in: .whitespaces)
            return text.isEmpty || text.hasPrefix("//") ? nil : Line(number: line.number, text: text)
        }
    }

    /// Every README.md of the package, relative to it, sorted (build folders and hidden ones aside).
    static let readmes: [String] = files(named: { $0 == "README.md" })

    /// Every Swift file of the package, read once (build folders and hidden ones aside).
    static let sources: [SourceFile] = files(named: { $0.hasSuffix(".swift") }).compactMap { path in
        guard let text = try? String(contentsOf: Transcript.packageRoot.appendingPathComponent(path), encoding: .utf8)
        else { return nil }
        let lines = text.components(separatedBy: "\n").enumerated().map { Line(number: $0 + 1, text: $1) }
        return SourceFile(path: path, code: code(of: lines))
    }

    /// The package's files whose names pass `isWanted`, relative to it, sorted.
    private static func files(named isWanted: (String) -> Bool) -> [String] {
        let root = Transcript.packageRoot
        guard
            let walk = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { return [] }
        var found: [String] = []
        for case let url as URL in walk {
            let path = String(url.path.dropFirst(root.path.count + 1))
            if path.hasPrefix("Chapters/OperationContract/Sample/.build") || url.lastPathComponent.hasPrefix(".build") {
                walk.skipDescendants()
                continue
            }
            if isWanted(url.lastPathComponent) { found.append(path) }
        }
        return found.sorted()
    }

    // MARK: Matching

    /// What is wrong with `block`, in words, naming the README line; nil if it is in a file of
    /// `sources` (or must not compile, which `ReadmeCodeTests` checks instead).
    static func problem(with block: Block, in sources: [SourceFile]) -> String? {
        guard !block.mustNotCompile else { return nil }
        let wanted = code(of: block.lines)
        let lines = wanted.filter { !isElision($0.text) }
        guard !lines.isEmpty else { return "\(block.readme):\(block.line): a ```swift block without code" }
        if let inline = wanted.first(where: { $0.text.contains("…") && !$0.text.hasSuffix("…") }) {
            return
                "\(block.readme):\(inline.number): `…` stands only for the rest of a line, at its end: \(inline.text)"
        }
        var nearest: (file: SourceFile, matched: Int, after: Int?)?
        for file in sources {
            let (matched, after) = longestMatch(of: wanted, in: file.code)
            if matched == lines.count { return nil }
            if matched > (nearest?.matched ?? -1) { nearest = (file, matched, after) }
        }
        guard let nearest, nearest.matched > 0 else {
            return "\(block.readme):\(lines[0].number): no Swift file of the package has this line: \(lines[0].text)"
        }
        let missing = lines[nearest.matched]
        let place = nearest.after.map { "after its line \($0)" } ?? "there"
        return
            "\(block.readme):\(missing.number): the block stops being the code here. Nearest file: "
            + "\(nearest.file.path), which has the lines before it but not this one \(place): \(missing.text)"
    }

    /// How many of `wanted`'s lines, from the first, `code` holds in order (the runs between `…`
    /// lines each a run of consecutive lines of the file), and the file line the last of them is on.
    static func longestMatch(of wanted: [Line], in code: [Line]) -> (matched: Int, after: Int?) {
        // Runs of lines, split where a line is only an ellipsis.
        var runs: [[Line]] = [[]]
        for line in wanted {
            if isElision(line.text) { runs.append([]) } else { runs[runs.count - 1].append(line) }
        }
        var matched = 0
        var from = 0
        var lastLine: Int?
        for run in runs where !run.isEmpty {
            // The first place, from `from` on, where the run matches for longest.
            var best = (length: 0, start: from)
            var start = from
            while start < code.count {
                var length = 0
                while length < run.count, start + length < code.count,
                    matches(run[length].text, code[start + length].text)
                {
                    length += 1
                }
                if length > best.length { best = (length, start) }
                if length == run.count { break }
                start += 1
            }
            matched += best.length
            if best.length > 0 { lastLine = code[best.start + best.length - 1].number }
            guard best.length == run.count else { return (matched, lastLine) }
            from = best.start + run.count
        }
        return (matched, lastLine)
    }

    /// Whether a block's line is only `…` (or `...`): it stands for lines of the file.
    static func isElision(_ text: String) -> Bool { text == "…" || text == "..." }

    /// Whether a block's line stands for a file's line: the same, or its beginning when the
    /// block's line ends in `…`.
    static func matches(_ wanted: String, _ line: String) -> Bool {
        guard wanted.hasSuffix("…") else { return wanted == line }
        let start = wanted.dropLast().trimmingCharacters(in: .whitespaces)
        return !start.isEmpty && line.hasPrefix(start)
    }
}
