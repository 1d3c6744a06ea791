import Foundation

/// One line of Swift Testing's event stream (`--experimental-event-stream-output`, schema
/// version 0): a JSON object that announces either a test (`kind` "test") or something that
/// happened (`kind` "event"). Fields the workshop does not read are not decoded, and every
/// field is optional, so that a newer Swift Testing that adds kinds or fields still decodes.
public struct StreamRecord: Decodable, Sendable {
    public let kind: String
    public let payload: Payload

    public struct Payload: Decodable, Sendable {
        // A test: "suite" or "function".
        public let id: String?
        public let name: String?
        public let displayName: String?
        // A test's kind ("suite", "function"), or an event's ("runStarted", "testEnded"…).
        public let kind: String?
        // An event.
        public let testID: String?
        public let messages: [Message]?
        public let issue: Issue?
    }

    public struct Message: Decodable, Sendable {
        /// "pass", "fail", "details", "default", … (names, never the console's glyphs).
        public let symbol: String
        public let text: String
    }

    public struct Issue: Decodable, Sendable {
        /// A known issue (`withKnownIssue`) does not fail its test.
        public let isKnown: Bool?
    }

    /// Decodes one line; nil for a line that is not a record (an empty or a cut-off line).
    public static func decode(line: some StringProtocol) -> StreamRecord? {
        guard !line.isEmpty else { return nil }
        return try? JSONDecoder().decode(StreamRecord.self, from: Data(line.utf8))
    }
}

/// Splits a growing stream of bytes into complete lines, keeping the cut-off end of a line
/// until the rest of it arrives.
public struct LineSplitter: Sendable {
    private var pending = Data()

    public init() {}

    /// The lines completed by `data`, without their line breaks.
    public mutating func add(_ data: Data) -> [String] {
        pending.append(data)
        var lines: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
            pending.removeSubrange(pending.startIndex...newline)
        }
        return lines
    }

    /// What is left: a last line without a line break.
    public mutating func flush() -> [String] {
        defer { pending = Data() }
        return pending.isEmpty ? [] : [String(decoding: pending, as: UTF8.self)]
    }
}
