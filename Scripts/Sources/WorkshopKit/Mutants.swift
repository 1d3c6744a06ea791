import Foundation

/// A mechanical variant of an exercise's reference solution (`Scripts/workshop mutants N`):
/// one small change a learner could make, which the exercise's check must reject, or an
/// equivalent rewrite, which it must accept.
public struct Mutant: Equatable, Sendable {
    /// How the mutant is named wherever it is named (the command's output, the exercise's
    /// Reference/EquivalentMutants.md): what was done, in which declaration, to which code.
    public let name: String
    public let source: String
    /// An equivalent rewrite (`self.`, another lock type): the check must accept it.
    public let isRewrite: Bool

    public init(name: String, source: String, isRewrite: Bool) {
        self.name = name
        self.source = source
        self.isRewrite = isRewrite
    }

    /// Every mutant of `solution`, each once: a statement deleted; two neighbours swapped; a
    /// lock or a queue hop dropped; a neighbour moved into one (into a recursive lock too), or
    /// its first or last statement moved out; a recursive lock; a time limit on a wait; state
    /// without its lock; then the rewrites that change nothing: `self.` before each member, a
    /// `Mutex` for each lock.
    public static func all(of solution: String) -> [Mutant] {
        let text = SourceText(solution)
        var found: [Mutant] = []
        var seen: Set<String> = [solution]
        var counts: [String: Int] = [:]
        func add(_ name: String, _ lines: [String], rewrite: Bool = false) {
            let source = lines.joined(separator: "\n")
            guard seen.insert(source).inserted else { return }
            counts[name, default: 0] += 1
            let count = counts[name]!
            found.append(Mutant(name: count == 1 ? name : "\(name) (\(count))", source: source, isRewrite: rewrite))
        }
        let lines = text.lines
        for unit in text.statements {
            add("delete in \(unit.owner): \(text.summary(unit))", text.replacing(unit.lines, with: []))
        }
        for run in text.runs {
            for (first, second) in zip(run, run.dropFirst()) {
                let between = lines[first.lines.upperBound..<second.lines.lowerBound]
                add(
                    "swap in \(first.owner): \(text.summary(first)) ⇄ \(text.summary(second))",
                    text.replacing(
                        first.lines.lowerBound..<second.lines.upperBound,
                        with: lines[second.lines] + between + lines[first.lines]))
            }
        }
        for unit in text.statements {
            for (name, changed) in text.blockMutants(unit) {
                add(name, changed)
                if name.hasPrefix("into the lock"), solution.contains("NSLock()") {
                    add(
                        name.replacingOccurrences(of: "into the lock", with: "into the recursive lock"),
                        changed.map { $0.replacingOccurrences(of: "NSLock()", with: "NSRecursiveLock()") })
                }
            }
        }
        for (index, line) in lines.enumerated() {
            let call = text.code[index].trimmingCharacters(in: .whitespaces)
            var changed = lines
            if call.contains("NSLock()") {
                changed[index] = line.replacingOccurrences(of: "NSLock()", with: "NSRecursiveLock()")
                add("recursive lock in \(text.owners[index]): \(text.summary(index))", changed)
            }
            if call.hasSuffix(".wait()"), call.dropLast(7).allSatisfy(SourceText.isIdentifier) {
                changed[index] = line.replacingOccurrences(
                    of: call, with: "_ = \(call.dropLast(1))timeout: .now() + 1)")
                add("time limit in \(text.owners[index]): \(text.summary(index))", changed)
            }
        }
        for state in text.lockedState {
            add("no lock for \(state.name) in \(text.owners[state.line])", text.withoutLock(state))
        }
        add("rewrite: self. before each member", text.withSelf(), rewrite: true)
        for state in text.lockedState where !state.isMutex {
            add("rewrite: a Mutex for \(state.name)", text.withMutex(state), rewrite: true)
        }
        return found
    }
}

extension Mutant {
    /// The mutants of what a learner writes: those that change a line the solution adds to
    /// `stub`, or a line in a function or accessor that holds one. The code the stub gives (a
    /// getter, a queue hop, a declaration of locked state) is the exercise's, not the answer's;
    /// a member the learner declares counts by its own lines. Rewrites are all kept.
    public static func all(of solution: String, writtenOver stub: String) -> [Mutant] {
        let text = SourceText(solution)
        let written = SourceText.unmatched(
            text.lines, against: stub.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
        let types = Set(text.code.filter(SourceText.declaresType).compactMap(SourceText.declaredName))
        let declarations = Set(written.map { text.owners[$0] }).subtracting(types).subtracting(["the file"])
        return all(of: solution).filter { mutant in
            let mutated = mutant.source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            return mutant.isRewrite
                || SourceText.unmatched(text.lines, against: mutated).contains {
                    written.contains($0) || declarations.contains(text.owners[$0])
                }
        }
    }
}

/// A Swift file as the mutation operators see it: its lines, the code of each (comment and
/// string contents left out, so that brackets can be counted), and the statements found by
/// matching brackets line by line.
struct SourceText {
    /// A statement or a declaration, a block's lines included, and the declaration it is in.
    struct Unit: Equatable {
        var lines: Range<Int>
        var owner: String
    }

    /// A lock, or state behind one: `let NAME = Locked(…)`, `NSLock()`, or a `Mutex`.
    struct LockedState {
        var name: String
        var line: Int
        var isMutex: Bool
    }

    let lines: [String]
    let code: [String]
    /// The declaration each line is in ("complete", "init", "Collector", "the file").
    private(set) var owners: [String]
    /// Statements inside functions and accessors, and a type's overrides: what may be deleted.
    private(set) var statements: [Unit] = []
    /// Neighbouring statements of one block (a `} else {` line ends one run, starts another).
    private(set) var runs: [[Unit]] = []
    /// Each type's members, and the lines of its members' bodies.
    private(set) var types: [(members: Set<String>, bodies: [Range<Int>])] = []

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        code = lines.map { Self.code($0) }
        owners = Array(repeating: "the file", count: lines.count)
        parse(0..<lines.count, owner: "the file", inBody: false, type: nil)
    }

    /// Reads the units of `range`, then those inside each block.
    mutating func parse(_ range: Range<Int>, owner: String, inBody: Bool, type: Int?) {
        var run: [Unit] = []
        var index = range.lowerBound
        while index < range.upperBound {
            let trimmed = code[index].trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || ["}", ")", "]", "case ", "default:", "#", "@"].contains(where: trimmed.hasPrefix) {
                if !trimmed.isEmpty, !run.isEmpty {
                    runs.append(run)
                    run = []
                }
                index += 1
                continue
            }
            let start = index
            var depth = 0
            repeat {
                depth += Self.net(code[index])
                index += 1
            } while depth > 0 && index < range.upperBound
            let unit = Unit(lines: start..<index, owner: owner)
            let declared = Self.declaredName(trimmed)
            if inBody {
                statements.append(unit)
                run.append(unit)
            } else if let type {
                if trimmed.split(separator: " ").contains("override") { statements.append(unit) }
                if let declared { types[type].members.insert(declared) }
            }
            // The statements start after the line that opens the block (a declaration's
            // parameters may take several lines), and belong to what it declares.
            guard index - start > 1, let opening = (start..<(index - 1)).first(where: { Self.opensBlock(code[$0]) })
            else {
                if let type, trimmed.contains("{") { types[type].bodies.append(start..<index) }
                continue
            }
            let name = !inBody || trimmed.contains("func ") ? declared ?? owner : owner
            for line in (opening + 1)..<(index - 1) { owners[line] = name }
            let isType = Self.declaresType(trimmed)
            if isType { types.append((members: [], bodies: [])) }
            if let type, !isType { types[type].bodies.append(start..<index) }
            parse((opening + 1)..<(index - 1), owner: name, inBody: !isType, type: isType ? types.count - 1 : nil)
        }
        if !run.isEmpty { runs.append(run) }
    }

    /// `lines` with `range` replaced by `new`.
    func replacing(_ range: Range<Int>, with new: some Sequence<String>) -> [String] {
        var changed = lines
        changed.replaceSubrange(range, with: Array(new))
        return changed
    }

    /// A unit's first line, without its comment, shortened, with "… }" for a block.
    func summary(_ unit: Unit) -> String {
        summary(unit.lines.lowerBound) + (unit.lines.count > 1 ? " … }" : "")
    }

    func summary(_ line: Int) -> String {
        let text = Self.code(lines[line], keepingStrings: true).trimmingCharacters(in: .whitespaces)
        return text.count > 70 ? text.prefix(69) + "…" : text
    }

    // MARK: - Locks and queue hops

    /// The mutants of a statement that gives a closure to `withLock`, `sync` or `async` (over
    /// several lines, or in one line with no string in it): without the call (the closure's
    /// statements in its place), a neighbour moved into it, its first or last statement moved
    /// out. A closure that takes parameters (`{ state in`, `$0`) is never dropped.
    func blockMutants(_ unit: Unit) -> [(String, [String])] {
        let first = unit.lines.lowerBound
        let single = unit.lines.count == 1
        guard let method = ["withLock", "sync", "async"].first(where: { code[first].contains(".\($0) {") }),
            !single || lines[first].hasPrefix(code[first]), let call = lines[first].range(of: ".\(method) {")
        else { return [] }
        let what = method == "withLock" ? "the lock" : "the queue hop"
        let line = lines[first]
        let before = String(line[..<Self.receiverStart(line, before: call.lowerBound)])
        var found: [(String, [String])] = []
        func add(_ change: String, _ subject: Unit, _ range: Range<Int>, _ new: [String]) {
            found.append(("\(change) \(what) in \(unit.owner): \(summary(subject))", replacing(range, with: new)))
        }
        // The block as the line that opens it, its statements, and the line that closes it.
        var (open, body, close) = (String(line[..<call.upperBound]), [String](), "")
        if single {
            guard let end = Self.matchingBrace(in: line, after: call) else { return [] }
            let inside = line[call.upperBound..<end].trimmingCharacters(in: .whitespaces)
            if !inside.contains(" in ") && !inside.contains("$0") {
                let unwrapped = before + inside + String(line[line.index(after: end)...])
                add("drop", unit, unit.lines, [unwrapped])
            }
            guard before.allSatisfy({ $0 == " " }), !inside.contains(" in ") else { return found }
            (body, close) = ([before + "    " + inside], before + String(line[end...]))
        } else {
            (open, body, close) = (
                line, Array(lines[(first + 1)..<(unit.lines.upperBound - 1)]), lines[unit.lines.upperBound - 1]
            )
            let trimmedBefore = before.trimmingCharacters(in: .whitespaces)
            if open.hasSuffix("{"), !body.joined().contains("$0"), trimmedBefore.isEmpty || trimmedBefore == "return" {
                add("drop", unit, unit.lines, body)
            }
        }
        let run = runs.first { $0.contains(unit) } ?? []
        if let position = run.firstIndex(of: unit) {
            if position + 1 < run.count {
                let next = run[position + 1]
                add("into", next, first..<next.lines.upperBound, [open] + body + lines[next.lines] + [close])
            }
            if position > 0 {
                let previous = run[position - 1]
                let range = previous.lines.lowerBound..<unit.lines.upperBound
                add("into", previous, range, [open] + lines[previous.lines] + body + [close])
            }
        }
        // Its own statements (not those of a block inside it): the first and the last moved out.
        let inside = single ? 0..<0 : (first + 1)..<(unit.lines.upperBound - 1)
        let nested = statements.filter { inside.contains($0.lines.lowerBound) }
        let own = nested.filter { statement in
            !nested.contains { $0 != statement && $0.lines.contains(statement.lines.lowerBound) }
        }
        if let head = own.first, let tail = own.last, head != tail {
            add(
                "out of", head, unit.lines,
                lines[inside.lowerBound..<head.lines.upperBound] + [open]
                    + lines[head.lines.upperBound..<inside.upperBound]
                    + [close])
            add(
                "out of", tail, unit.lines,
                [open] + lines[inside.lowerBound..<tail.lines.lowerBound] + [close]
                    + lines[tail.lines.lowerBound..<inside.upperBound])
        }
        return found
    }

    /// Where the receiver of a call that starts at `index` begins: "DispatchQueue.global()".
    static func receiverStart(_ line: String, before index: String.Index) -> String.Index {
        var start = index
        var depth = 0
        while start > line.startIndex {
            let previous = line[line.index(before: start)]
            depth += previous == ")" ? 1 : previous == "(" ? -1 : 0
            guard depth > 0 || depth == 0 && (isIdentifier(previous) || "().".contains(previous)) else { break }
            start = line.index(before: start)
        }
        return start
    }

    /// The "}" that closes the "{" that ends `call`, on the same line.
    static func matchingBrace(in line: String, after call: Range<String.Index>) -> String.Index? {
        var depth = 1
        return line[call.upperBound...].indices.first { index in
            depth += line[index] == "{" ? 1 : line[index] == "}" ? -1 : 0
            return depth == 0
        }
    }

    // MARK: - State and its lock

    var lockedState: [LockedState] {
        code.indices.compactMap { index -> LockedState? in
            let line = code[index]
            guard let name = Self.declaredName(line), line.contains("let \(name)") else { return nil }
            if line.contains("Mutex") { return LockedState(name: name, line: index, isMutex: true) }
            let locks = ["= Locked", ": Locked<", "= NSLock()", "= NSRecursiveLock()"]
            return locks.contains(where: line.contains) ? LockedState(name: name, line: index, isMutex: false) : nil
        }
    }

    /// The lines that make `state`'s lock: its declaration, and an assignment in `init`.
    func creations(of state: LockedState) -> [Int] {
        code.indices.filter { index in
            let trimmed = code[index].trimmingCharacters(in: .whitespaces)
            return index == state.line || trimmed.hasPrefix("\(state.name) = ")
                || trimmed.hasPrefix("self.\(state.name) = ")
        }
    }

    /// The solution with `state` behind a stand-in that has a lock's interface and no lock.
    func withoutLock(_ state: LockedState) -> [String] {
        var changed = lines
        for index in creations(of: state) {
            for (from, to) in [
                ("NSRecursiveLock()", "NoLock()"), ("NSLock()", "NoLock()"), ("Locked", "Unlocked"),
                ("Mutex", "Unlocked"),
            ] {
                changed[index] = changed[index].replacingOccurrences(of: from, with: to)
            }
        }
        return changed + [
            "",
            "/// A lock's interface without a lock (Scripts/workshop mutants).",
            "final class Unlocked<Value>: @unchecked Sendable {",
            "    var value: Value",
            "    init(_ value: Value) { self.value = value }",
            "    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R { try body(&value) }",
            "}",
            "final class NoLock: @unchecked Sendable {",
            "    func lock() {}",
            "    func unlock() {}",
            "    func withLock<R>(_ body: () throws -> R) rethrows -> R { try body() }",
            "}",
        ]
    }

    /// The solution with `state` behind a `Mutex` (a lock becomes a `Mutex<Void>`).
    func withMutex(_ state: LockedState) -> [String] {
        var changed = lines
        for index in creations(of: state) {
            changed[index] = changed[index].replacingOccurrences(of: "Locked", with: "Mutex")
                .replacingOccurrences(of: "NSRecursiveLock()", with: "Mutex(())").replacingOccurrences(
                    of: "NSLock()", with: "Mutex(())")
        }
        if !code[state.line].contains("Locked") {
            changed = changed.map {
                $0.replacingOccurrences(of: "\(state.name).withLock {", with: "\(state.name).withLock { _ in")
            }
        }
        changed.insert("import Synchronization", at: (changed.lastIndex { $0.hasPrefix("import ") } ?? -1) + 1)
        return changed
    }

    // MARK: - self.

    /// The solution with `self.` before each use of a type's own members in its members'
    /// bodies, except where the name is also a parameter, a local or a closure's parameter.
    func withSelf() -> [String] {
        var changed = lines
        for type in types {
            for body in type.bodies {
                let members = type.members.subtracting(body.flatMap { Self.localNames(code[$0]) })
                for index in body {
                    // A body's first line is its declaration: only what follows its "{".
                    let line = lines[index]
                    let from = index > body.lowerBound ? line.startIndex : line.firstIndex(of: "{") ?? line.endIndex
                    changed[index] = String(line[..<from]) + Self.prefixingSelf(line[from...], members: members)
                }
            }
        }
        return changed
    }

    /// `text` with `self.` before each of `members` used as an identifier (not in a string, a
    /// comment, a closure's capture list, or as an argument's label).
    static func prefixingSelf(_ text: Substring, members: Set<String>) -> String {
        var result = ""
        var index = text.startIndex
        var (inString, inCaptureList) = (false, false)
        while index < text.endIndex {
            let character = text[index]
            guard !inString, isIdentifier(character) else {
                if character == "\"", result.last != "\\" { inString.toggle() }
                if !inString, text[index...].hasPrefix("//") { return result + text[index...] }
                if !inString, character == "[" || character == "]" {
                    inCaptureList = character == "[" && result.hasSuffix("{ ")
                }
                result.append(character)
                index = text.index(after: index)
                continue
            }
            let end = text[index...].firstIndex { !isIdentifier($0) } ?? text.endIndex
            let word = text[index..<end]
            if members.contains(String(word)), result.last != ".", result.last.map(isIdentifier) != true,
                !text[end...].hasPrefix(":"), !inCaptureList
            {
                result += "self."
            }
            result += word
            index = end
        }
        return result
    }

    /// The names a line declares for the body it is in: locals, closures' parameters, and a
    /// function's parameters (the word before each ":" after its "(").
    static func localNames(_ code: String) -> [String] {
        let words = code.split(whereSeparator: { !isIdentifier($0) }).map(String.init)
        var names = zip(words, words.dropFirst()).compactMap { first, second in
            ["let", "var"].contains(first) ? second : second == "in" ? first : nil
        }
        if let open = code.firstIndex(of: "("), code.contains("func ") || code.contains("init") {
            for part in code[open...].split(separator: ",") {
                guard let colon = part.firstIndex(of: ":") else { continue }
                if let name = part[..<colon].split(whereSeparator: { !isIdentifier($0) }).last {
                    names.append(String(name))
                }
            }
        }
        return names
    }

    // MARK: - Reading a line

    /// The code of a line: no comment, and no string's contents (the quotes stay) unless kept.
    static func code(_ line: String, keepingStrings: Bool = false) -> String {
        var result = ""
        var (inString, escaped) = (false, false)
        for character in line {
            if inString {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
                if keepingStrings || !inString { result.append(character) }
                continue
            }
            if character == "/", result.last == "/" {
                result.removeLast()
                break
            }
            inString = character == "\""
            result.append(character)
        }
        while result.last == " " { result.removeLast() }
        return result
    }

    /// Brackets opened minus brackets closed.
    /// The indices of `lines` that a longest common subsequence with `other` leaves out: the
    /// lines `other` changed or lacks.
    static func unmatched(_ lines: [String], against other: [String]) -> Set<Int> {
        var longest = Array(repeating: Array(repeating: 0, count: other.count + 1), count: lines.count + 1)
        for i in lines.indices.reversed() {
            for j in other.indices.reversed() {
                longest[i][j] =
                    lines[i] == other[j] ? longest[i + 1][j + 1] + 1 : max(longest[i + 1][j], longest[i][j + 1])
            }
        }
        var left: Set<Int> = []
        var (i, j) = (0, 0)
        while i < lines.count {
            if j < other.count, lines[i] == other[j] {
                (i, j) = (i + 1, j + 1)
            } else if j < other.count, longest[i][j + 1] >= longest[i + 1][j] {
                j += 1
            } else {
                left.insert(i)
                i += 1
            }
        }
        return left
    }

    static func net(_ code: String) -> Int {
        code.reduce(0) { $0 + ("{([".contains($1) ? 1 : "})]".contains($1) ? -1 : 0) }
    }

    static func isIdentifier(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }

    /// Whether a line opens a block of statements: "… {" or "… { params in".
    static func opensBlock(_ code: String) -> Bool {
        code.hasSuffix("{") || code.hasSuffix(" in") && code.contains("{")
    }

    static func declaresType(_ code: String) -> Bool {
        let words = code.split(separator: " ")
        return words.contains { ["class", "struct", "enum", "extension", "actor", "protocol"].contains($0) }
            && !words.contains("func") && !words.contains("var")
    }

    /// The name a declaration declares: "complete" for `func complete(`, "init", "isExecuting"
    /// for `open override var isExecuting: Bool {`, "Collector" for `final class Collector`;
    /// nil for a line that is not a declaration.
    static func declaredName(_ code: String) -> String? {
        let modifiers: Set = [
            "public", "private", "fileprivate", "internal", "package", "open", "final", "override", "static",
            "nonisolated", "unsafe", "required", "convenience", "lazy", "weak", "unowned", "mutating", "dynamic",
        ]
        let words = code.split(whereSeparator: { !isIdentifier($0) && $0 != "@" }).map(String.init)
        guard let keyword = words.first(where: { !modifiers.contains($0) && !$0.hasPrefix("@") }) else { return nil }
        if keyword == "init" { return keyword }
        guard ["func", "class", "struct", "enum", "extension", "actor", "protocol", "var", "let"].contains(keyword),
            let position = words.firstIndex(of: keyword), position + 1 < words.count
        else { return nil }
        return words[position + 1]
    }
}
