import Foundation

/// One guarantee that an asynchronous operation owes its queue, its dependents and its callers.
///
/// Each clause is something a chapter of AsyncOperationsPlayground proves with a test, and
/// each is checked by running your operation the way an app does: on a queue, with
/// dependents, waiters, a completion block, cancellations at the moments that matter.
///
/// A clause is defined once, in a file of its own under `Clauses/`: its name, its summary,
/// the chapter that explains it, its documentation comment and its check. ``allCases`` lists
/// them in the order they are checked: finishing first, then cancelling, then many operations
/// at once.
///
/// ```swift
/// let report = await checkContract(clauses: [.cancelledBeforeStart, .cancelWhileRunning]) { work in
///     UploadOperation(work)
/// }
/// ```
public struct ContractClause: Sendable, Hashable, CaseIterable, RawRepresentable, Codable, CustomStringConvertible {
    /// The clause's name, as written in Swift: `cancelledBeforeStart`.
    public let rawValue: String
    /// The guarantee, in one sentence.
    public let summary: String
    /// The number of the playground's chapter that explains this clause and shows it broken.
    public let chapter: Int
    /// The file of the kit that defines, documents and checks this clause, in the copy of the
    /// kit that was built.
    public let documentation: URL
    /// Checks the clause: runs operations the checker makes, and notes what it sees in `run`.
    let check: @Sendable (Checker, ClauseRun) -> Void

    init(
        _ name: String, _ summary: String, chapter: Int, file: String = #filePath,
        check: @escaping @Sendable (Checker, ClauseRun) -> Void
    ) {
        rawValue = name
        self.summary = summary
        self.chapter = chapter
        documentation = URL(fileURLWithPath: file)
        self.check = check
    }

    /// Every clause, in the order the kit checks them.
    ///
    /// The one list of clauses: a clause that is not here is never checked, and the kit's tests
    /// check that its documentation lists exactly these.
    public static let allCases: [ContractClause] = [
        .executingWhileWorking, .finishIsAnnounced, .workEndingAtOnce, .secondFinishChangesNothing, .startedByHand,
        .cancelledBeforeStart, .cancelWhileWaiting, .cancelWhileRunning, .cancelStopsTheWork, .cancelAsItStarts,
        .cancelledAheadOfItsDependency, .resultOnEveryPath, .dependenciesUnderLoad, .manyAtOnce, .freedOnceFinished,
        .announcedForObservers,
    ]

    /// The clause named `rawValue`, if there is one.
    public init?(rawValue: String) {
        guard let clause = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = clause
    }

    /// The clause's name, as written in Swift: `cancelledBeforeStart`.
    public var description: String { rawValue }

    /// What to read about the clause, in words that stand alone, then where.
    public var reading: String {
        "ContractClause.\(rawValue) in the OperationContract kit's documentation: \(documentation.absoluteString)"
    }

    public static func == (left: ContractClause, right: ContractClause) -> Bool { left.rawValue == right.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// Decodes a clause from its name (an exit test can capture it).
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let clause = Self(rawValue: name) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "no clause \(name)"))
        }
        self = clause
    }

    /// Encodes the clause as its name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
