import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Records what a chapter's run does — what happens to its operations, the lines it prints —
/// in the order it happens, for the pictures in each chapter's `timelines` folder.
///
/// A chapter records only when its `main.swift` starts a recording, which it does in one line
/// (`Timeline.recordIfAsked()`, ChapterSupport) when it runs with `--timeline FOLDER`. Otherwise
/// `Recorder.current` is nil, and a report costs one load and one branch.
///
/// The chapters' libraries know nothing of it: everything is observed from outside them.
/// - Operations report through reporting subclasses that the chapters' executables make
///   (ChapterSupport's `OperationWatch`, `BlockOperation.named(_:_:)`), from what any subclass
///   sees: `start()`, `main()`, and the getters that Foundation reads while an operation
///   announces a change. Queues report what their callers do (`OperationQueue.named(_:)`).
/// - Printed lines: the chapters' own through `say` (ChapterSupport), with the lane of the code
///   that printed them; anything else the program prints (the articles' `print`, Foundation's
///   warnings) is read from its standard output (`captureStandardOutput()`).
///
/// Recording never changes what a program prints, or when: it only appends to a list.
public final class Recorder: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is read and written under `lock`.

    /// The recording of this run; nil (the default) unless the program has installed one.
    public static var current: Recorder? { installed }

    /// Written once, by `install(_:)`, which a program calls first, before it makes any operation
    /// or thread that reports; read afterwards. Every reader runs on a thread started after the
    /// write, which makes it safe without a lock — and a report of a program that records
    /// nothing stays one load and one branch.
    nonisolated(unsafe) private static var installed: Recorder?

    /// Makes `recorder` the recording of this run. Call it once, before anything reports.
    public static func install(_ recorder: Recorder) {
        precondition(installed == nil, "a run has one recording")
        installed = recorder
    }

    private let lock = NSLock()
    private var sections: [RecordedSection] = []
    private var lanes: [ObjectIdentifier: ObjectLane] = [:]
    private var lanesByNumber: [Int: ObjectLane] = [:]
    private var nextLaneNumber = 0
    private var nextGroup = 0
    private var stretchesUnderWay = 0
    private var output: CapturedOutput?

    /// A recorder of its own, for tests; a program's runs use `current`.
    public init() {
        _ = Self.mainQueueKey  // marks the main queue now, before any code could ask
    }

    // MARK: Output

    /// From now on, reads what the program writes to its standard output: each line that the
    /// program prints other than through `printed(_:)` (the articles' `print`, Foundation's own
    /// warnings) is recorded as printed by "other threads", and passed on unchanged.
    ///
    /// A line is read, and recorded, just before the next event is: it was printed after the
    /// events before it, and before this one (whatever came after it, it caused after it). So
    /// the picture of a run is the same whenever the run causes the same order.
    public func captureStandardOutput() {
        lock.withLock {
            guard output == nil else { return }
            output = CapturedOutput()
        }
    }

    /// Stops reading the standard output: what is left is recorded and passed on, and the
    /// program writes to its standard output directly again.
    public func releaseStandardOutput() {
        lock.withLock {
            readPrintedLines()
            output?.release()
            output = nil
        }
    }

    /// Prints `line` at once; recorded, unless `recorded` is false (a heading, which titles a
    /// section instead). The lock is held while it is written, so that the recorded order is the
    /// printed order.
    public func printed(_ line: String, recorded: Bool = true) {
        let by = here
        lock.withLock {
            readPrintedLines()
            if let output {
                output.write(line)
            } else {
                Swift.print(line)
                fflush(nil)  // nil: all output streams; `stdout` itself is a global var Swift 6 rejects
            }
            if recorded { appendNow(RawEvent(lane: .output, kind: .printed, detail: line, after: [], by: by)) }
        }
    }

    // MARK: Sections

    /// Starts a new section (a chapter's heading): what follows is drawn in a picture of its own.
    /// With `besidePrevious`, its picture sits beside the previous section's, in one file.
    /// With `drawn: false`, the section is recorded but has no picture: its order is not
    /// caused throughout (what it shows depends on timing), so no picture could be the same
    /// on every run.
    public func beginSection(_ title: String, besidePrevious: Bool = false, drawn: Bool = true) {
        lock.withLock {
            readPrintedLines()  // printed before the heading: the previous section's
            sections.append(RecordedSection(title: title, besidePrevious: besidePrevious, drawn: drawn))
        }
    }

    // MARK: Reports

    /// Gives `object` its lane now, so that lanes are drawn in the order their objects were made.
    /// Optional: an object reported without it gets its lane at its first event.
    public func register(_ object: AnyObject) {
        let name = (object as? Operation)?.name  // read outside the lock: Foundation takes its own
        lock.withLock {
            let lane = lane(for: object)
            if let name, !name.isEmpty { lane.name = name }
        }
    }

    /// `object` did `kind`, drawn in its own lane. `after` lists the objects it waited for
    /// (dependencies), drawn as arrows from their "finished" to this event.
    ///
    /// `byCaller`: the code that calls this did it to `object` (added it to a queue), and the
    /// picture counts it as that code's doing too. Otherwise it is the object's alone — whichever
    /// thread reports it (a reporting subclass reports "finished" from whoever reads `isFinished`
    /// first).
    ///
    /// With `onlyIfReporting`, nothing is recorded for an object that did not `register` at its
    /// creation: a queue reports what is added to it, and an operation that reports nothing
    /// itself would seem to wait in the queue forever.
    public func report(
        _ kind: EventKind, of object: AnyObject, detail: String? = nil, after: [AnyObject] = [],
        byCaller: Bool = false, onlyIfReporting: Bool = false
    ) {
        let name = (object as? Operation)?.name  // read outside the lock: Foundation takes its own
        let caller = byCaller ? here : nil
        lock.withLock {
            if onlyIfReporting, lanes[ObjectIdentifier(object)]?.object !== object { return }
            let lane = lane(for: object)
            if let name, !name.isEmpty { lane.name = name }
            settle(lane)
            let afterLanes = after.map { LaneKey.object(self.lane(for: $0).number) }
            append(
                RawEvent(
                    lane: .object(lane.number), kind: kind, detail: detail, after: afterLanes,
                    by: caller ?? .object(lane.number)),
                to: lane.section ?? sections.count - 1)
        }
    }

    /// Gives `object` its lane now, named after its Foundation `name`: for a reporting subclass
    /// (ChapterSupport's `OperationWatch`), which reports its events in that lane.
    public func watch(_ object: AnyObject) -> Lane {
        let name = (object as? Operation)?.name  // read outside the lock: Foundation takes its own
        return lock.withLock {
            let lane = lane(for: object)
            if let name, !name.isEmpty { lane.name = name }
            return Lane(number: lane.number)
        }
    }

    /// The lane of `object`, to report events for it once it may be gone (a completion block
    /// runs after the queue has let its operation go).
    public func lane(of object: AnyObject) -> Lane {
        lock.withLock { Lane(number: lane(for: object).number) }
    }

    /// The operation of `lane` did `kind`.
    public func record(_ kind: EventKind, in lane: Lane, detail: String? = nil) {
        lock.withLock {
            guard let owner = lanesByNumber[lane.number] else { return }
            settle(owner)
            append(
                RawEvent(lane: .object(lane.number), kind: kind, detail: detail, after: [], by: .object(lane.number)),
                to: owner.section ?? sections.count - 1)
        }
    }

    /// `block`, made to report `.completionBlock` for `operation` when it begins: what a
    /// reporting subclass's `completionBlock` setter stores.
    public func reportingCompletion(
        of operation: AnyObject, _ block: (@Sendable () -> Void)?
    ) -> (@Sendable () -> Void)? {
        guard let block else { return nil }
        // The lane, not the operation: the block may run after the queue has let it go.
        let lane = lane(of: operation)
        return {
            self.record(.completionBlock, in: lane)
            self.withLane(lane, block)
        }
    }

    /// Something named `lane` did `kind`: for work that is not an `Operation` (chapter 8's
    /// coordinated operations, chapter 10's tasks, a task that awaits operations). Its lane
    /// belongs to the current section.
    public func report(_ kind: EventKind, lane name: String, detail: String? = nil, after: [AnyObject] = []) {
        lock.withLock {
            let afterLanes = after.map { LaneKey.object(self.lane(for: $0).number) }
            append(
                RawEvent(lane: .named(name), kind: kind, detail: detail, after: afterLanes, by: .named(name)),
                to: sections.count - 1)
        }
    }

    /// The code running on this thread did `kind`: the operation whose lane this thread is in
    /// (see `withLane`), else the main thread's lane, else "other threads".
    public func recordHere(_ kind: EventKind, detail: String? = nil, after: [AnyObject] = []) {
        let here = here
        lock.withLock {
            let afterLanes = after.map { LaneKey.object(self.lane(for: $0).number) }
            let section = here.objectNumber.flatMap { lanesByNumber[$0]?.section } ?? sections.count - 1
            append(RawEvent(lane: here, kind: kind, detail: detail, after: afterLanes, by: here), to: section)
        }
    }

    /// Runs `body` with this thread in `object`'s lane: what `recordHere` reports meanwhile is
    /// drawn there.
    public func withLane<Result>(of object: AnyObject, _ body: () throws -> Result) rethrows -> Result {
        try withLane(lane(of: object), body)
    }

    /// Runs `body` with this thread in `lane`.
    public func withLane<Result>(_ lane: Lane, _ body: () throws -> Result) rethrows -> Result {
        let thread = Thread.current.threadDictionary
        let previous = thread[Self.laneKey]
        thread[Self.laneKey] = LaneBox(.object(lane.number))
        defer { thread[Self.laneKey] = previous }
        return try body()
    }

    /// Declares that `objects` run at the same time, so that the order between their events
    /// of the same kind is not caused and differs from run to run. Their n-th events of each
    /// kind (of `kinds` only, if given) are drawn together, in one column, where the last of
    /// them happened. An object in several declarations: the first that names the kind counts.
    public func inAnyOrder(_ objects: [AnyObject], kinds: Set<EventKind>? = nil) {
        lock.withLock {
            nextGroup += 1
            for object in objects { lane(for: object).groups.append((nextGroup, kinds)) }
        }
    }

    /// Runs `body`, a stretch of reports that belong together (an operation's `main()` and the
    /// "finished" after it): `recordedSections(settling:)` waits for stretches under way.
    public func reporting<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.withLock { stretchesUnderWay += 1 }
        defer { lock.withLock { stretchesUnderWay -= 1 } }
        return try body()
    }

    // MARK: Reading back

    /// Every section recorded, once the stretches of reports under way have ended (waiting at most
    /// `seconds`): a program that exits as soon as an operation's work has signalled it still
    /// gets that operation's "finished".
    public func recordedSections(settling seconds: Double) -> [Section] {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while lock.withLock({ stretchesUnderWay > 0 }), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.001)
        }
        return recordedSections()
    }

    /// Every section recorded so far, canonical: the same run gives the same sections.
    public func recordedSections() -> [Section] {
        lock.withLock {
            readPrintedLines()
            return sections.enumerated().map { index, section in
                section.canonical(number: index + 1, lanes: lanesByNumber)
            }
        }
    }

    // MARK: Private

    private static let laneKey = "Recording.lane"

    /// The lane of the code running on this thread: the operation whose lane it is in (see
    /// `withLane`), else the main thread's, else "other threads".
    private var here: LaneKey {
        (Thread.current.threadDictionary[Self.laneKey] as? LaneBox)?.key ?? (onMain ? .caller : .elsewhere)
    }

    /// True on the main thread, and in code the main queue runs (the main actor's code after a
    /// program's top-level code has awaited: Dispatch may then drain the main queue on another
    /// thread, as it does on Linux).
    private var onMain: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: Self.mainQueueKey) != nil
    }

    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// The lane of `object`, made if it has none. A lane whose object was freed is not reused
    /// for a new object at the same address. (Call under `lock`.)
    private func lane(for object: AnyObject) -> ObjectLane {
        let id = ObjectIdentifier(object)
        if let lane = lanes[id], lane.object === object { return lane }
        nextLaneNumber += 1
        let lane = ObjectLane(object: object, number: nextLaneNumber)
        lanes[id] = lane
        lanesByNumber[lane.number] = lane
        return lane
    }

    /// Gives `lane` the current section, at its first event: its later events are drawn there,
    /// even those that come after the next heading. A lane whose first events come in a section
    /// that is not drawn gets the first drawn section it has events in. (Under `lock`.)
    private func settle(_ lane: ObjectLane) {
        guard lane.section == nil, let current = sections.indices.last, sections[current].drawn else { return }
        lane.section = current
    }

    /// Appends to section `index`, after the lines printed before it; events before the first
    /// section are not drawn. (Under `lock`.)
    private func append(_ event: RawEvent, to index: Int?) {
        readPrintedLines()
        guard let index, sections.indices.contains(index) else { return }
        sections[index].events.append(event)
    }

    /// Appends to the current section, the printed lines read so far being recorded. (Under `lock`.)
    private func appendNow(_ event: RawEvent) {
        guard let index = sections.indices.last else { return }
        sections[index].events.append(event)
    }

    /// Records the lines the program printed to its standard output since the last look, and
    /// passes them on. (Under `lock`.)
    private func readPrintedLines() {
        guard let output else { return }
        for line in output.readLines() {
            appendNow(RawEvent(lane: .output, kind: .printed, detail: line, after: [], by: .elsewhere))
        }
    }
}

/// An operation's lane, kept to report for it without holding it.
public struct Lane: Sendable, Hashable {
    let number: Int
}

/// A lane key boxed for a thread dictionary (which holds objects).
private final class LaneBox: NSObject {
    let key: LaneKey
    init(_ key: LaneKey) { self.key = key }
}

/// What the recorder knows of an object with a lane. Only touched under the recorder's lock.
final class ObjectLane {
    weak var object: AnyObject?
    let number: Int
    let typeName: String
    var name: String?
    var section: Int?
    /// The `inAnyOrder` declarations it is in, and the kinds of events each covers (nil: all).
    var groups: [(id: Int, kinds: Set<EventKind>?)] = []

    /// The declaration that covers its events of `kind`, if any.
    func group(for kind: EventKind) -> Int? {
        groups.first { $0.kinds?.contains(kind) ?? true }?.id
    }

    init(object: AnyObject, number: Int) {
        self.object = object
        self.number = number
        // "TaskOperation<String>" reads as "TaskOperation".
        let type = String(describing: Swift.type(of: object))
        self.typeName = type.split(separator: "<").first.map(String.init) ?? type
    }
}
