/// What happened to an operation (or to the code that runs it), as a picture draws it.
public enum EventKind: String, Sendable, CaseIterable {
    /// Added to a queue: it waits there until the queue starts it.
    case added
    /// The queue (or someone) called its `start()`.
    case start
    /// It reports `isExecuting == true`.
    case executing
    /// Its `main()` returned.
    case mainReturned
    /// The work it stands for began, or ended (the asynchronous part, for asynchronous operations).
    case workStarted, workEnded
    /// It was cancelled (`cancel()` took effect).
    case cancelled
    /// It reports `isFinished == true`: the queue, waiters and dependents may go on.
    case finished
    /// Its `completionBlock` began to run.
    case completionBlock
    /// The code in this lane blocks until something has finished, or returns from that wait.
    /// A wait whose beginning is not caused (it races with what it waits for) is reported by its
    /// return alone, with what it waited in as `detail`: the picture starts its bar at the
    /// lane's previous event.
    case waits, waitReturned
    /// An awaiting task suspends until an operation has finished, or resumes.
    case suspends, resumes
    /// A line the program printed.
    case printed
    /// Anything else the story does (`detail` says what): "cancelAllOperations()", "resumes the held queue".
    case note

    /// How the picture labels it; nil: it is drawn as the edge of a bar, which the legend names.
    var label: String? {
        switch self {
        case .added, .executing, .workStarted, .workEnded, .waits, .waitReturned, .suspends, .printed: nil
        case .start: "start()"
        case .mainReturned: "main() returned"
        case .cancelled: "cancel()"
        case .finished: "finished"
        case .completionBlock: "completion block"
        case .resumes: "resumes"
        case .note: ""
        }
    }

    /// The words used for it in a picture's event list.
    var words: String {
        switch self {
        case .added: "added to a queue"
        case .start: "start()"
        case .executing: "executing"
        case .mainReturned: "main() returned"
        case .workStarted: "its work starts"
        case .workEnded: "its work ends"
        case .cancelled: "cancelled"
        case .finished: "finished"
        case .completionBlock: "completion block runs"
        case .waits: "waits"
        case .waitReturned: "the wait returns"
        case .suspends: "suspends"
        case .resumes: "resumes"
        case .printed: "printed"
        case .note: "note"
        }
    }
}

/// One event of a section, with its lane's name.
public struct Event: Sendable, Equatable {
    /// The lane's name; nil for a printed line, which belongs to the program's output.
    public var lane: String?
    public var kind: EventKind
    /// The printed line, the note, or what a wait waits for.
    public var detail: String?
    /// The lanes it waited for (dependencies, or the operation an awaiting task resumes after).
    public var after: [String]
    /// The lane of the code that reported it, when that is not `lane`: the caller that added an
    /// operation, the operation that printed a line.
    public var by: String?

    public init(lane: String?, _ kind: EventKind, detail: String? = nil, after: [String] = [], by: String? = nil) {
        self.lane = lane
        self.kind = kind
        self.detail = detail
        self.after = after
        self.by = by
    }

    /// The label drawn beside its mark, if any. (A wait is labelled at the start of its bar.)
    public var label: String? {
        kind == .note ? detail : kind.label
    }

    /// One line of a picture's event list: "download: finished", "upload: start() after resize, thumbnail".
    public var line: String {
        var text: String
        switch kind {
        case .printed: text = "\(by.map { "\($0) " } ?? "")printed: \(detail ?? "")"
        case .note: text = "\(lane ?? ""): \(detail ?? "")"
        default:
            text = "\(lane ?? ""): \(kind.words)"
            if let detail { text += " (\(detail))" }
        }
        if !after.isEmpty { text += " after " + after.joined(separator: ", ") }
        return text
    }
}

/// A chapter section as recorded: its lanes in drawing order, and its events in steps. A step
/// is one column of the picture: one event, or several whose order was not caused (see
/// `Recorder.inAnyOrder`), sorted by lane.
public struct Section: Sendable, Equatable {
    public var number: Int
    public var title: String
    /// Drawn beside the previous section's picture, in one file.
    public var besidePrevious: Bool
    /// False: recorded, but not drawn (see `Recorder.beginSection`).
    public var drawn: Bool
    public var lanes: [String]
    public var steps: [[Event]]

    public init(
        number: Int, title: String, besidePrevious: Bool = false, drawn: Bool = true, lanes: [String],
        steps: [[Event]]
    ) {
        self.number = number
        self.title = title
        self.besidePrevious = besidePrevious
        self.drawn = drawn
        self.lanes = lanes
        self.steps = steps
    }

    /// The name of the main thread's lane (the chapter's top-level code).
    public static let callerLane = "main thread"
    /// The lane of code that reports from a thread that is neither an operation's nor the main one.
    public static let elsewhereLane = "other threads"
}

// MARK: - Raw recording

/// Which lane an event is drawn in, while recording.
enum LaneKey: Hashable {
    case object(Int)
    case named(String)
    case caller
    case elsewhere
    case output

    var objectNumber: Int? {
        if case .object(let number) = self { number } else { nil }
    }
}

struct RawEvent {
    let lane: LaneKey
    let kind: EventKind
    let detail: String?
    let after: [LaneKey]
    /// The lane of the code that reported it: the caller that added an operation, the
    /// operation that printed a line.
    let by: LaneKey
}

struct RecordedSection {
    let title: String
    let besidePrevious: Bool
    let drawn: Bool
    var events: [RawEvent] = []

    init(title: String, besidePrevious: Bool, drawn: Bool) {
        self.title = title
        self.besidePrevious = besidePrevious
        self.drawn = drawn
    }

    /// The section as it is drawn, the same for every run in which the same things were caused:
    /// - lanes: the main thread's first, then named lanes (an awaiting task, work that is not an
    ///   operation) in the order of their first event, then operations in the order they got
    ///   their lanes, then "other threads";
    /// - events in the order they were recorded, except those of lanes declared `inAnyOrder`:
    ///   the n-th events of one kind of those lanes form one step, placed where the last of
    ///   them was recorded, sorted by lane.
    func canonical(number: Int, lanes objectLanes: [Int: ObjectLane]) -> Section {
        // Lane order and names.
        var keys: [LaneKey] = []
        for event in events where event.lane != .output && !keys.contains(event.lane) { keys.append(event.lane) }
        let drawnKeys = Set(keys)
        for event in events where !keys.contains(event.by) { keys.append(event.by) }
        let firstSeen = Dictionary(keys.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        func rank(_ key: LaneKey) -> (Int, Int) {
            switch key {
            case .caller: (0, 0)
            case .named: (1, firstSeen[key] ?? 0)
            case .object(let number): (2, number)
            case .elsewhere: (3, 0)
            case .output: (4, 0)
            }
        }
        keys.sort { rank($0) < rank($1) }
        var names: [LaneKey: String] = [:]
        var used: [String: Int] = [:]
        for key in keys {
            let base: String
            switch key {
            case .caller: base = Section.callerLane
            case .elsewhere: base = Section.elsewhereLane
            case .named(let name): base = name
            case .object(let number): base = objectLanes[number].map { $0.name ?? $0.typeName } ?? "operation"
            case .output: base = ""
            }
            used[base, default: 0] += 1
            names[key] = used[base]! == 1 ? base : "\(base) (\(used[base]!))"
        }

        // Groups: the n-th events of one kind of the lanes of one `inAnyOrder` declaration.
        struct GroupKey: Hashable {
            let group: Int
            let kind: EventKind
            let occurrence: Int
        }
        var occurrences: [LaneKey: [EventKind: Int]] = [:]
        var groupOf: [Int: GroupKey] = [:]  // event index -> its group
        for (index, event) in events.enumerated() {
            // Adding is the caller's doing, in its order: never grouped.
            guard event.kind != .added, let number = event.lane.objectNumber,
                let group = objectLanes[number]?.group(for: event.kind)
            else { continue }
            let occurrence = occurrences[event.lane, default: [:]][event.kind, default: 0]
            occurrences[event.lane, default: [:]][event.kind] = occurrence + 1
            let key = GroupKey(group: group, kind: event.kind, occurrence: occurrence)
            groupOf[index] = key
        }
        func resolved(_ event: RawEvent) -> Event {
            Event(
                lane: event.lane == .output ? nil : names[event.lane],
                event.kind,
                detail: event.detail,
                // In lane order: Foundation does not promise an order of `dependencies`.
                after: event.after.sorted { rank($0) < rank($1) }.compactMap { names[$0] },
                by: event.by == event.lane ? nil : names[event.by]
            )
        }
        // One step per group, or per event outside any group; a step's place is that of its last
        // member. A lane's events keep their order: an event recorded before a group that holds
        // an earlier event of its lane comes right after that group (several such, by lane).
        var stepOf: [Int] = []  // event index -> step
        var members: [[Int]] = []  // step -> event indices
        var stepOfGroup: [GroupKey: Int] = [:]
        for index in events.indices {
            if let key = groupOf[index], let step = stepOfGroup[key] {
                stepOf.append(step)
                members[step].append(index)
            } else {
                if let key = groupOf[index] { stepOfGroup[key] = members.count }
                stepOf.append(members.count)
                members.append([index])
            }
        }
        var place = members.map { Double($0.last!) }
        var laneSteps: [LaneKey: [Int]] = [:]
        for (index, event) in events.enumerated() where laneSteps[event.lane]?.last != stepOf[index] {
            laneSteps[event.lane, default: []].append(stepOf[index])
        }
        var moved = true
        while moved {
            moved = false
            for sequence in laneSteps.values {
                for (earlier, later) in zip(sequence, sequence.dropFirst()) where place[later] <= place[earlier] {
                    place[later] = place[earlier] + 0.001
                    moved = true
                }
            }
        }
        func sortKey(_ step: Int) -> (Double, Int, Int, Int) {
            let first = members[step][0]
            let laneRank = rank(events[first].lane)
            return (place[step], laneRank.0, laneRank.1, first)
        }
        let order = members.indices.sorted { sortKey($0) < sortKey($1) }
        let steps = order.map { step in
            members[step].map { events[$0] }.sorted { rank($0.lane) < rank($1.lane) }.map(resolved)
        }
        return Section(
            number: number, title: title, besidePrevious: besidePrevious, drawn: drawn,
            lanes: keys.filter(drawnKeys.contains).compactMap { names[$0] }, steps: steps)
    }
}
