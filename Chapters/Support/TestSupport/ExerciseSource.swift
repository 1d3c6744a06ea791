import Foundation

/// A workshop exercise's source file, read by its tests on Linux for the one thing that leaves
/// no trace there at run time: Linux's Foundation declares `willChangeValue(forKey:)` on
/// `Operation` as a method that does nothing and that no subclass can override, so whether an
/// operation calls it cannot be seen while it runs. (On a Mac the tests record the calls
/// themselves, through overrides of `NSObject`'s methods.)
///
/// The check accepts every way of writing the calls — literal keys, a loop over keys, a
/// helper, key paths — because it only pairs them: each argument given to `didChangeValue`
/// must be given as often to `willChangeValue`.
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
        self.init(code: text, path: path)
    }

    /// `code` as if read from `path`.
    public init(code: String, path: String) {
        self.path = path
        self.code = Self.withoutComments(code)
    }

    /// Every `willChangeValue(…)` and `didChangeValue(…)` call, in the order written: which
    /// one, and its argument without its label (`"isFinished"`, `key`, `\.isFinished`).
    public var announcements: [(change: String, argument: String)] {
        var found: [(change: String, argument: String)] = []
        var rest = code[...]
        while let call = rest.firstMatch(of: /\b(will|did)ChangeValue\s*\(/) {
            let open = code.index(before: call.range.upperBound)
            guard let argument = Self.parenthesised(in: code, from: open) else { break }
            let text = argument.replacing(/^\s*(forKey|for)\s*:/, with: "").filter { !$0.isWhitespace }
            found.append((String(call.output.1), text))
            rest = code[call.range.upperBound...]
        }
        return found
    }

    /// What is wrong with how the file announces changes, one short sentence each; empty if
    /// every `didChangeValue` argument has as many `willChangeValue` calls with the same
    /// argument. Which keys are announced is judged at run time, not here: Linux's
    /// `didChangeValue(forKey:)` reads the getter of a key the queue observes, and only those.
    public func announcementProblems() -> [String] {
        let calls = announcements
        var problems: [String] = []
        var arguments: [String] = []
        for call in calls where !arguments.contains(call.argument) { arguments.append(call.argument) }
        for argument in arguments {
            let wills = calls.filter { $0.change == "will" && $0.argument == argument }.count
            let dids = calls.filter { $0.change == "did" && $0.argument == argument }.count
            let shown = argument.hasPrefix("\\") ? "for: \(argument)" : "forKey: \(argument)"
            if wills == 0 {
                problems.append(
                    "didChangeValue(\(shown)) is called without willChangeValue(\(shown)) before it: Linux does not mind, but on a Mac key-value observing then notifies nobody, and the queue never learns"
                )
            } else if dids == 0 {
                problems.append(
                    "willChangeValue(\(shown)) is called, but never didChangeValue(\(shown)): nobody learns the change")
            } else if wills != dids {
                problems.append(
                    "willChangeValue(\(shown)) is called \(wills) times, didChangeValue(\(shown)) \(dids) times: each change needs one of each"
                )
            }
        }
        return problems
    }

    /// What is wrong with the order of the calls, in the file, one short sentence each: each
    /// `didChangeValue(x)` must follow a `willChangeValue(x)`, with a change of the state
    /// between them (`withLock`, `lock()`, or an assignment to `executing`, `finished` or
    /// `state`): first the will, then the change, then the did.
    /// Read in the file's order — a loop or a helper keeps it — except that a call inside a
    /// `defer { }` block runs at the end of its scope, after any change written below it.
    public func orderProblems() -> [String] {
        enum Event {
            case will(String)
            case did(String, deferred: Bool)
            case change
        }
        var events: [(offset: Int, event: Event)] = []
        for call in code.matches(of: /\b(will|did)ChangeValue\s*\(/) {
            let open = code.index(before: call.range.upperBound)
            guard let argument = Self.parenthesised(in: code, from: open) else { continue }
            let text = argument.replacing(/^\s*(forKey|for)\s*:/, with: "").filter { !$0.isWhitespace }
            let offset = code.distance(from: code.startIndex, to: call.range.lowerBound)
            if call.output.1 == "will" {
                events.append((offset, .will(text)))
            } else {
                events.append((offset, .did(text, deferred: Self.isDeferred(at: call.range.lowerBound, in: code))))
            }
        }
        // A change: taking the lock, or assigning the exercise's state (inside the lock, or not).
        for change in code.matches(of: /\.withLock\b|\.lock\(\)|\bwithLock\s*[({]|\b(executing|finished|state)\s*=[^=]/)
        {
            events.append((code.distance(from: code.startIndex, to: change.range.lowerBound), .change))
        }
        events.sort { $0.offset < $1.offset }

        var problems: [String] = []
        var openWills: [String: [Int]] = [:]  // argument → indexes of wills not yet paired
        for (index, (_, event)) in events.enumerated() {
            switch event {
            case .change:
                break
            case .will(let argument):
                openWills[argument, default: []].append(index)
            case .did(let argument, let deferred):
                let shown = argument.hasPrefix("\\") ? "for: \(argument)" : "forKey: \(argument)"
                guard let will = openWills[argument]?.first else {
                    // A will for it further down (a did with no will at all is announcementProblems').
                    let willLater = events[index...].contains {
                        if case .will(argument) = $0.event { true } else { false }
                    }
                    if willLater {
                        problems.append(
                            "didChangeValue(\(shown)) comes before its willChangeValue(\(shown)) in the file: first the will, then the change, then the did"
                        )
                    }
                    continue
                }
                openWills[argument]?.removeFirst()
                let between = events[(will + 1)...].prefix { $0.offset < events[index].offset }
                let changed =
                    deferred
                    ? events[(will + 1)...].contains { if case .change = $0.event { true } else { false } }
                    : between.contains { if case .change = $0.event { true } else { false } }
                if !changed {
                    problems.append(
                        "nothing changes the state between willChangeValue(\(shown)) and didChangeValue(\(shown)) in the file: the will comes before the change (lock.withLock { }), the did after it"
                    )
                }
            }
        }
        return problems
    }

    /// Whether the call at `index` is inside a `defer { }` block.
    static func isDeferred(at index: String.Index, in code: String) -> Bool {
        var depth = 0
        var position = index
        while position > code.startIndex {
            position = code.index(before: position)
            switch code[position] {
            case "}": depth += 1
            case "{":
                if depth == 0 {
                    let before = code[..<position].trimmingCharacters(in: .whitespacesAndNewlines)
                    return before.hasSuffix("defer")
                }
                depth -= 1
            default: break
            }
        }
        return false
    }

    /// `text` without `//` and `/* */` comments.
    static func withoutComments(_ text: String) -> String {
        text.replacing(/\/\*[\s\S]*?\*\//, with: "")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
            .joined(separator: "\n")
    }

    /// The text between the parenthesis at `open` and its matching closing one.
    static func parenthesised(in code: String, from open: String.Index) -> Substring? {
        var depth = 0
        var index = open
        while index < code.endIndex {
            switch code[index] {
            case "(": depth += 1
            case ")":
                depth -= 1
                if depth == 0 { return code[code.index(after: open)..<index] }
            default: break
            }
            index = code.index(after: index)
        }
        return nil
    }
}
