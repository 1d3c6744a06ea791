/// A compiler diagnostic with the lines that explain it: the source excerpt the compiler
/// draws under it, and its notes ("note: 'x' declared here") with their excerpts.
public struct Diagnostic: Equatable, Sendable {
    public enum Severity: String, Sendable { case error, warning }

    public let severity: Severity
    /// The file as the compiler printed it (absolute), or a generated interface's name.
    public let file: String
    public let line: Int
    public let column: Int
    public let message: String
    /// Every line of the diagnostic as printed, starting with its own header line.
    public let lines: [String]
    /// The notes' header lines ("…: note: …"), a subset of `lines`.
    public let notes: [String]
}

/// What a build printed, read for what the learner needs: the errors with their notes, and
/// the warnings.
public struct CompilerOutput: Sendable {
    public private(set) var diagnostics: [Diagnostic] = []
    /// Error lines without a location ("error: …"), from the package manager itself.
    public private(set) var otherErrors: [String] = []

    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
    public var warnings: [Diagnostic] { diagnostics.filter { $0.severity == .warning } }

    /// Reads a build's console output.
    public init(console: String) {
        var current: (header: Header, lines: [String], notes: [String])?
        var seen = Set<String>()

        func close() {
            guard let open = current else { return }
            current = nil
            // The compiler may report one error twice (emitting the module, then compiling).
            guard seen.insert(open.lines[0]).inserted else { return }
            diagnostics.append(
                Diagnostic(
                    severity: open.header.severity == "error" ? .error : .warning, file: open.header.file,
                    line: open.header.line, column: open.header.column, message: open.header.message,
                    lines: Self.trimmed(open.lines), notes: open.notes))
        }

        for line in console.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let header = Header(line) {
                switch header.severity {
                case "error", "warning":
                    close()
                    current = (header, [line], [])
                case "note":
                    current?.lines.append(line)
                    current?.notes.append(line)
                default:
                    current?.lines.append(line)
                }
            } else if line.hasPrefix("error: ") {
                close()
                // "error: fatalError" only says that the compiler failed, which its errors say.
                if line != "error: fatalError", !otherErrors.contains(line) { otherErrors.append(line) }
            } else if Self.isExcerpt(line) || line.isEmpty {
                current?.lines.append(line)
            } else {
                close()
            }
        }
        close()
    }

    /// A source excerpt line the compiler draws: "32 |  code", "   |   `- error: …".
    static func isExcerpt(_ line: String) -> Bool {
        let trimmed = line.drop { $0 == " " }
        if trimmed.hasPrefix("|") { return true }
        let digits = trimmed.prefix { $0.isNumber }
        return !digits.isEmpty && trimmed.dropFirst(digits.count).hasPrefix(" |")
    }

    /// Without the empty lines at the end.
    static func trimmed(_ lines: [String]) -> [String] {
        var lines = lines
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// "path:line:column: severity: message".
    struct Header {
        let file: String
        let line: Int
        let column: Int
        let severity: String
        let message: String

        init?(_ text: String) {
            for severity in ["error", "warning", "note", "remark"] {
                guard let marker = text.range(of: ": \(severity): ") else { continue }
                let location = text[..<marker.lowerBound].split(separator: ":", omittingEmptySubsequences: false)
                guard location.count >= 3, let line = Int(location[location.count - 2]),
                    let column = Int(location[location.count - 1])
                else { continue }
                self.file = location.dropLast(2).joined(separator: ":")
                self.line = line
                self.column = column
                self.severity = severity
                self.message = String(text[marker.upperBound...])
                return
            }
            return nil
        }
    }
}
