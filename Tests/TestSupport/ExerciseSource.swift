import Foundation

/// A workshop exercise's source file, read by its tests for what Linux cannot show at run
/// time: Foundation on Linux ignores `willChangeValue(forKey:)`, so a `didChangeValue` without
/// it works here and notifies nobody on a Mac, where key-value observing is real.
public struct ExerciseSource {
    /// The file's code, without its comments.
    public let code: String
    public let path: String

    /// Reads `path`, from the exercise's folder (e.g. "Exercise2/AnnouncingOperation.swift"),
    /// found from the test file that asks: Chapters/Workshop/NN-Name/Tests/File.swift.
    public init?(_ path: String, testFile: String = #filePath) {
        var root = URL(fileURLWithPath: testFile)
        for _ in 0..<2 { root.deleteLastPathComponent() }
        guard let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) else {
            return nil
        }
        self.path = path
        code = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
            .joined(separator: "\n")
    }

    /// The body of the first function whose declaration contains `signature` (e.g.
    /// "func finish()"), between its braces; nil if there is none.
    public func body(of signature: String) -> Substring? {
        guard let declaration = code.range(of: signature),
            let open = code[declaration.upperBound...].firstIndex(of: "{")
        else { return nil }
        return Self.block(in: code[...], from: open)
    }

    /// What is wrong with how `code` announces `keys`, one short sentence each; empty if each
    /// key is announced with `willChangeValue(forKey:)` before `didChangeValue(forKey:)`, and
    /// neither inside a `withLock { }`.
    public static func announcementProblems(in code: Substring, keys: [String], where place: String) -> [String] {
        let calls = code.matches(of: /(will|did)ChangeValue\(\s*forKey:\s*"(\w+)"\s*\)/)
        let lockedSpans = code.ranges(of: "withLock").compactMap { found -> Range<String.Index>? in
            guard let open = code[found.upperBound...].firstIndex(of: "{"),
                let body = block(in: code, from: open)
            else { return nil }
            return body.startIndex..<body.endIndex
        }
        var problems: [String] = []
        for key in keys {
            let will = calls.first { $0.output.1 == "will" && $0.output.2 == key }
            let did = calls.first { $0.output.1 == "did" && $0.output.2 == key }
            let (announceWill, announceDid) = (call("will", key), call("did", key))
            switch (will, did) {
            case (nil, nil):
                problems.append(
                    "\(place) never announces \"\(key)\": \(announceWill) before the change, \(announceDid) after it")
            case (nil, _?):
                problems.append(
                    "\(place) calls \(announceDid) without \(announceWill) before it: on a Mac that notifies nobody")
            case (_?, nil):
                problems.append("\(place) calls \(announceWill) but never \(announceDid): nobody learns the change")
            case (let will?, let did?) where will.range.lowerBound > did.range.lowerBound:
                problems.append("\(place): \(announceWill) goes before the change, \(announceDid) after it")
            default:
                break
            }
        }
        if calls.contains(where: { call in lockedSpans.contains { $0.contains(call.range.lowerBound) } }) {
            problems.append(
                "\(place) announces a change inside withLock { }: Foundation reads the getters while announcing, and they wait for that lock (a deadlock)"
            )
        }
        return problems
    }

    /// How a learner writes the call, e.g. `willChangeValue(forKey: "isFinished")`.
    static func call(_ change: String, _ key: String) -> String {
        "\(change)ChangeValue(forKey: \"\(key)\")"
    }

    /// The text between the brace at `open` and its matching closing brace.
    static func block(in code: Substring, from open: String.Index) -> Substring? {
        var depth = 0
        var index = open
        while index < code.endIndex {
            switch code[index] {
            case "{": depth += 1
            case "}":
                depth -= 1
                if depth == 0 { return code[code.index(after: open)..<index] }
            default: break
            }
            index = code.index(after: index)
        }
        return nil
    }
}
