/// A compiler error with the lines that explain it: the source excerpt the compiler draws under
/// it, and its notes ("note: 'x' declared here") with their excerpts.
public struct Diagnostic: Equatable, Sendable {
    /// The file as the compiler printed it (absolute), or a generated interface's name.
    public let file: String
    public let line: Int
    public let message: String
    /// Every line of the diagnostic as printed, starting with its own header line.
    public let lines: [String]

    /// The notes' header lines ("…: note: …").
    public var notes: [String] { lines.filter { $0.contains(": note: ") } }
}

/// What a build printed, read for what the learner needs: the errors with their notes.
public struct CompilerOutput: Sendable {
    public private(set) var errors: [Diagnostic] = []
    /// Error lines without a location ("error: …"), from the package manager itself.
    public private(set) var otherErrors: [String] = []

    /// Reads a build's console output.
    public init(console: String) {
        // The diagnostic being read (a warning's lines are read, then dropped), by header line.
        var current: (header: Header, lines: [String])?
        var seen = Set<String>()
        func close() {
            // The compiler may report one error twice (emitting the module, then compiling).
            if let (header, lines) = current.map({ ($0.header, $0.lines) }), header.severity == "error",
                seen.insert(lines[0]).inserted
            {
                let lines = lines.reversed().drop { $0.isEmpty }.reversed()
                errors.append(
                    Diagnostic(file: header.file, line: header.line, message: header.message, lines: Array(lines)))
            }
            current = nil
        }
        for line in console.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let header = Header(line), header.severity == "error" || header.severity == "warning" {
                close()
                current = (header, [line])
            } else if Header(line) != nil || Self.isExcerpt(line) || line.isEmpty {
                current?.lines.append(line)  // a note or a remark, or the source it shows
            } else {
                close()
                // "error: fatalError" only says that the compiler failed, which its errors say.
                if line.hasPrefix("error: "), line != "error: fatalError", !otherErrors.contains(line) {
                    otherErrors.append(line)
                }
            }
        }
        close()
    }

    /// A source excerpt line the compiler draws: "32 |  code", "   |   `- error: …".
    static func isExcerpt(_ line: String) -> Bool {
        let trimmed = line.drop { $0 == " " }
        let digits = trimmed.prefix { $0.isNumber }
        return trimmed.dropFirst(digits.count).hasPrefix(digits.isEmpty ? "|" : " |")
    }

    /// "path:line:column: severity: message".
    struct Header {
        let file: String
        let line: Int
        let severity: String
        let message: String

        init?(_ text: String) {
            for severity in ["error", "warning", "note", "remark"] {
                guard let marker = text.range(of: ": \(severity): ") else { continue }
                let location = text[..<marker.lowerBound].split(separator: ":", omittingEmptySubsequences: false)
                guard location.count >= 3, let line = Int(location[location.count - 2]),
                    Int(location[location.count - 1]) != nil
                else { continue }
                (file, self.line) = (location.dropLast(2).joined(separator: ":"), line)
                (self.severity, message) = (severity, String(text[marker.upperBound...]))
                return
            }
            return nil
        }
    }
}
