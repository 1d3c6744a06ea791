/// A test that the event stream announced.
public struct TestInfo: Equatable, Sendable {
    public let id: String
    /// The function's name, e.g. "finishReturns()"; the suite's type name for a suite.
    public let name: String
    /// What `@Test("…")` or `@Suite("…")` says, else the name.
    public let displayName: String
    public let isSuite: Bool

    /// The function's name without its parameter list, as a wrong answer's "Caught by:" line
    /// names it: "finishReturns".
    public var functionName: String {
        name.firstIndex(of: "(").map { String(name[..<$0]) } ?? name
    }
}

/// An issue a test recorded: an expectation that failed, or `Issue.record`.
public struct RecordedIssue: Equatable, Sendable {
    public let testID: String?
    /// What the expectation saw, e.g. "Expectation failed: learned"; "Issue recorded" for
    /// `Issue.record`.
    public let expectation: String
    /// The messages the test wrote for the learner (an expectation's comment, `Issue.record`'s
    /// message). Swift Testing also attaches the `//` comments written above an expectation, as
    /// notes for whoever reads the test: those are left out.
    public let comments: [String]

    public init(testID: String?, expectation: String, comments: [String]) {
        self.testID = testID
        self.expectation = expectation
        self.comments = comments.filter { !Self.isSourceComment($0) }
    }

    /// A comment Swift Testing took from the test's source ("// …", "/// …", "/* … */").
    static func isSourceComment(_ text: String) -> Bool {
        let trimmed = text.drop { $0 == " " }
        return trimmed.hasPrefix("//") || trimmed.hasPrefix("/*")
    }

    /// The lines that tell the learner what went wrong: the test's own words, or what the
    /// expectation saw when the test says nothing.
    public var explanation: [String] {
        comments.isEmpty ? [expectation] : comments
    }
}

/// What a test run has reported so far, built from the event stream's records as they come.
public struct RunLog: Sendable {
    public private(set) var tests: [String: TestInfo] = [:]
    /// Test functions (not suites) in the order they started.
    public private(set) var started: [String] = []
    /// Test functions that ended, and whether they passed.
    public private(set) var ended: [String: Bool] = [:]
    public private(set) var issues: [RecordedIssue] = []
    public private(set) var runStarted = false
    public private(set) var runEnded = false

    public init() {}

    /// Something a learner may want to see as it happens: a test ended (with the issues it
    /// recorded, so that they are shown under it, whatever else ran meanwhile), an issue
    /// recorded outside any test, the tests started.
    public enum Happening: Equatable, Sendable {
        case ended(TestInfo, passed: Bool, issues: [RecordedIssue])
        case issueOutsideTest(RecordedIssue)
        case runStarted
    }

    /// Adds one record; returns what it tells the learner.
    @discardableResult
    public mutating func add(_ record: StreamRecord) -> [Happening] {
        let payload = record.payload
        if record.kind == "test", let id = payload.id {
            tests[id] = TestInfo(
                id: id, name: payload.name ?? id, displayName: payload.displayName ?? payload.name ?? id,
                isSuite: payload.kind == "suite")
            return []
        }
        guard record.kind == "event", let kind = payload.kind else { return [] }
        let test = payload.testID.flatMap { tests[$0] }
        switch kind {
        case "runStarted":
            runStarted = true
            return [.runStarted]
        case "runEnded":
            runEnded = true
        case "testStarted":
            if let test, !test.isSuite {
                started.append(test.id)
            }
        case "testEnded":
            if let test, !test.isSuite {
                let passed = payload.messages?.first?.symbol == "pass" && !issues.contains { $0.testID == test.id }
                ended[test.id] = passed
                return [.ended(test, passed: passed, issues: issues(of: test.id))]
            }
        case "issueRecorded":
            guard payload.issue?.isKnown != true else { return [] }
            let messages = payload.messages ?? []
            let summary = messages.first { $0.symbol != "details" }?.text ?? "Issue recorded"
            let issue = RecordedIssue(
                testID: payload.testID, expectation: Self.expectation(in: summary),
                comments: messages.filter { $0.symbol == "details" }.map(\.text))
            issues.append(issue)
            return test == nil ? [.issueOutsideTest(issue)] : []
        default:
            break
        }
        return []
    }

    /// Adds every record in `lines` of the event stream.
    public mutating func add(lines: [String]) {
        for line in lines {
            if let record = StreamRecord.decode(line: line) { add(record) }
        }
    }

    /// "Expectation failed: learned" from `Test "…" recorded an issue at File.swift:47:9:
    /// Expectation failed: learned`.
    static func expectation(in summary: String) -> String {
        guard let at = summary.range(of: " recorded an issue at ") else { return summary }
        let rest = summary[at.upperBound...]
        // After "File.swift:47:9: ". A test's name may contain ": ", the location does not.
        guard let separator = rest.range(of: ": ") else { return String(rest) }
        return String(rest[separator.upperBound...])
    }

    // MARK: - Questions about the run

    /// Test functions that started and have not ended, in the order they started.
    public var unfinished: [TestInfo] {
        started.filter { ended[$0] == nil }.compactMap { tests[$0] }
    }

    /// Test functions that ended with an issue, in the order they started.
    public var failed: [TestInfo] {
        started.filter { ended[$0] == false }.compactMap { tests[$0] }
    }

    public var passed: [TestInfo] {
        started.filter { ended[$0] == true }.compactMap { tests[$0] }
    }

    /// The issues test `id` recorded.
    public func issues(of id: String) -> [RecordedIssue] {
        issues.filter { $0.testID == id }
    }
}
