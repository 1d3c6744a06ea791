import AsyncOperations
import Dispatch
import Foundation

#if os(Linux)
    import Synchronization
#endif

/// What an operation announces, seen while it runs: every `willChangeValue(forKey:)` and
/// `didChangeValue(forKey:)` it makes, in order, with the thread that made it and what its
/// getters said at that moment — whatever the code that made the call looks like (a literal
/// key, a loop over keys, a helper, `self.`; on Linux, a key path too).
///
/// How the calls are seen:
/// - **Linux:** Foundation declares both methods in an extension of `Operation`, so no subclass
///   can override them. TestSupport defines Foundation's own symbols for them
///   (`AnnouncementHooks.swift`): every call in a test process reaches TestSupport first, which
///   tells the watch of that operation, if there is one, then runs Foundation's own code.
/// - **Darwin:** they are `NSObject`'s, and a test's subclass overrides both (read, not run on
///   a Mac here):
///
///       #if !os(Linux)
///           override func willChangeValue(forKey key: String) {
///               AnnouncementWatch.announce(.will, key, by: self) { super.willChangeValue(forKey: key) }
///           }
///           override func didChangeValue(forKey key: String) {
///               AnnouncementWatch.announce(.did, key, by: self) { super.didChangeValue(forKey: key) }
///           }
///       #endif
///
/// At each call, before Foundation sees it, the watch reads `isExecuting`, `isFinished` and
/// `isCancelled` from another thread, as a queue or a waiter would: if they do not answer within
/// `getterPatience` seconds, the lock they take is held while the operation announces: the
/// event says so (`state` is nil), and the watch stops reading them. Then it runs `before`, on the announcing thread: the place to
/// put another thread's action exactly there (a `cancel()` as "isExecuting" is announced).
///
/// Each watch takes a lock of its own for every call it records: a test that wants
/// ThreadSanitizer to see two unordered accesses must not watch that operation.
public final class AnnouncementWatch: Sendable {
    /// One call, as it began.
    public struct Event: Sendable, CustomStringConvertible {
        public enum Change: String, Sendable {
            case will = "willChangeValue"
            case did = "didChangeValue"
        }

        /// Its place among the watch's events, from 1.
        public let number: Int
        public let change: Change
        public let key: String
        public let thread: ThreadIdentity
        /// What the getters said as the call began; nil if they did not answer (a lock held).
        public let state: OperationState?

        public var description: String { "\(change.rawValue)(forKey: \"\(key)\")" }
    }

    private struct Record {
        var recording = true
        var events: [Event] = []
        var returned: Set<Int> = []
        /// Once the getters did not answer, the watch stops asking (each wait would cost `getterPatience`).
        var gettersHeld = false
    }

    private let record = Locked(Record())
    private let before: (@Sendable (Event) -> Void)?
    private let readsGetters: Bool
    /// How long the watch waits for the getters at each call before it says the lock was held.
    public let getterPatience: Double

    /// Watches `operation` from now until `stop()`. `before` runs at each call, on the
    /// announcing thread, before Foundation sees the call; `readsGetters: false` records the
    /// calls without reading the getters (for an operation that must not be touched meanwhile).
    public init(
        of operation: Operation, readsGetters: Bool = true, getterPatience: Double = 2,
        before: (@Sendable (Event) -> Void)? = nil
    ) {
        self.before = before
        self.readsGetters = readsGetters
        self.getterPatience = getterPatience * boundStretch
        WatchRegistry.add(self, for: operation)
    }

    /// Every call recorded so far, in the order they began.
    public var events: [Event] { record.withLock { $0.events } }

    /// The calls that began and have not returned: a `didChangeValue` stuck in Foundation's
    /// code (waiting for a getter whose lock is held, for instance).
    public var unreturned: [Event] {
        record.withLock { record in record.events.filter { !record.returned.contains($0.number) } }
    }

    /// Stops recording; calls go on reaching Foundation as before.
    public func stop() { record.withLock { $0.recording = false } }

    /// For a test subclass's overrides on Darwin (see the type's documentation): records the call
    /// if a watch watches `operation`, then calls `forward`, which passes it on to `super`.
    public static func announce(
        _ change: Event.Change, _ key: String, by operation: Operation, _ forward: () -> Void
    ) {
        guard let watch = WatchRegistry.watch(for: operation) else { return forward() }
        watch.announce(change, key, by: operation, forward)
    }

    func announce(_ change: Event.Change, _ key: String, by operation: Operation, _ forward: () -> Void) {
        let (recording, held) = record.withLock { ($0.recording, $0.gettersHeld) }
        guard recording else { return forward() }
        let state = readsGetters && !held ? OperationState.read(operation, within: getterPatience) : nil
        let event = record.withLock { record in
            if readsGetters && state == nil { record.gettersHeld = true }
            let event = Event(
                number: record.events.count + 1, change: change, key: key, thread: .current, state: state)
            record.events.append(event)
            return event
        }
        before?(event)
        forward()
        record.withLock { _ = $0.returned.insert(event.number) }
    }
}

/// What an operation's getters said at one moment.
public struct OperationState: Sendable, Equatable, CustomStringConvertible {
    public let isExecuting: Bool
    public let isFinished: Bool
    public let isCancelled: Bool

    public init(isExecuting: Bool, isFinished: Bool, isCancelled: Bool) {
        self.isExecuting = isExecuting
        self.isFinished = isFinished
        self.isCancelled = isCancelled
    }

    /// The value of `key` ("isExecuting", "isFinished", "isCancelled"), nil for another key.
    public func value(of key: String) -> Bool? {
        switch key {
        case "isExecuting": isExecuting
        case "isFinished": isFinished
        case "isCancelled": isCancelled
        default: nil
        }
    }

    public var description: String {
        "isExecuting = \(isExecuting), isFinished = \(isFinished), isCancelled = \(isCancelled)"
    }

    /// What `operation`'s getters say now, read on the calling thread.
    public static func now(_ operation: Operation) -> OperationState {
        OperationState(
            isExecuting: operation.isExecuting, isFinished: operation.isFinished, isCancelled: operation.isCancelled)
    }

    /// Reads the three getters of `operation` on a thread of its own; nil if they did not
    /// answer within `seconds` (that thread is left waiting, and ends when the lock is let go).
    /// Blocks the calling thread meanwhile: for a call inside an announcement, which must see
    /// the state at that moment.
    public static func read(_ operation: Operation, within seconds: Double) -> OperationState? {
        let box = Locked<OperationState?>(nil)
        let answered = DispatchSemaphore(value: 0)
        let reader = Thread {
            let state = now(operation)
            box.withLock { $0 = state }
            answered.signal()
        }
        reader.start()
        guard answered.wait(timeout: .now() + seconds) == .success else { return nil }
        return box.withLock { $0 }
    }
}

/// A thread, as the tests tell threads apart (`pthread_self`).
public struct ThreadIdentity: Hashable, Sendable, CustomStringConvertible {
    public let raw: UInt

    /// The calling thread.
    public static var current: ThreadIdentity {
        #if os(Linux)
            ThreadIdentity(raw: UInt(pthread_self()))
        #else
            ThreadIdentity(raw: UInt(bitPattern: pthread_self()))
        #endif
    }

    public var description: String { "thread 0x\(String(raw, radix: 16))" }
}

/// Which watch watches which operation. Operations are held weakly: a freed operation's entry
/// matches nothing, even if another object is later allocated at its address.
///
/// On Linux every `willChangeValue`/`didChangeValue` of the test process looks here, so the
/// lookup takes no lock: a lock taken by every announcing thread would order their accesses,
/// and ThreadSanitizer would no longer see a race between them. The entries form a list that
/// only grows (one entry per watch, a few hundred at most in a test process).
enum WatchRegistry {
    final class Entry: @unchecked Sendable {
        // @unchecked Sendable: `operation` is set in init, before the entry is published, and
        // only read afterwards; `next` is atomic.
        weak var operation: Operation?
        let watch: AnnouncementWatch
        #if os(Linux)
            let next = AtomicLazyReference<Entry>()
        #endif
        init(_ operation: Operation, _ watch: AnnouncementWatch) {
            self.operation = operation
            self.watch = watch
        }
    }

    #if os(Linux)
        private static let first = AtomicLazyReference<Entry>()

        static func add(_ watch: AnnouncementWatch, for operation: Operation) {
            let entry = Entry(operation, watch)
            var last = first.storeIfNil(entry)
            while last !== entry {
                last = last.next.storeIfNil(entry)  // the entry after `last`: ours, or one added meanwhile
            }
            AnnouncementHooks.watching()
        }

        /// The latest watch of `operation`, if any.
        static func watch(for operation: Operation) -> AnnouncementWatch? {
            guard AnnouncementHooks.anyWatch else { return nil }
            var found: AnnouncementWatch?
            var entry = first.load()
            while let current = entry {
                if current.operation === operation { found = current.watch }
                entry = current.next.load()
            }
            return found
        }
    #else
        private static let entries = Locked<[Entry]>([])

        static func add(_ watch: AnnouncementWatch, for operation: Operation) {
            entries.withLock { entries in
                entries.removeAll { $0.operation == nil }
                entries.append(Entry(operation, watch))
            }
        }

        /// The latest watch of `operation`, if any.
        static func watch(for operation: Operation) -> AnnouncementWatch? {
            entries.withLock { entries in entries.last { $0.operation === operation }?.watch }
        }
    #endif
}

extension AnnouncementWatch {
    /// Whether this process sees announcements: on Linux, whether the hooks are reached (a debug
    /// build); on Darwin, true — a test's subclass overrides the calls (see the type's documentation).
    public static var seesAnnouncements: Bool {
        #if os(Linux)
            AnnouncementHooks.installed
        #else
            true
        #endif
    }

    /// A change that a piece of code must announce: `key`'s getter goes from `old` to `new`.
    public struct Change: Sendable {
        public let key: String
        public let old: Bool
        public let new: Bool

        public init(_ key: String, from old: Bool, to new: Bool) {
            self.key = key
            self.old = old
            self.new = new
        }
    }

    /// What is wrong with the recorded calls, one sentence each; empty if every call is paired
    /// — each `willChangeValue(forKey: k)` followed, on the same thread, by a
    /// `didChangeValue(forKey: k)`, and each did preceded by its will — and each of `changes`
    /// is announced: some will of its key came while the getter still said the old value, and
    /// its did after it said the new one. A pair around no change (a key announced though its
    /// value stays) is not a problem. `place` names the code, e.g. "finish()". Calls whose
    /// getters did not answer are judged only by their pairing (`lockProblems` reports them).
    /// Only the calls that `only` keeps are judged (those of one thread, for instance).
    public func problems(in place: String, changes: [Change], only: (Event) -> Bool = { _ in true }) -> [String] {
        let all = events.filter(only)
        var keys: [String] = []
        for key in all.map(\.key) + changes.map(\.key) where !keys.contains(key) { keys.append(key) }
        // One sentence per kind of problem, naming each call it was seen at.
        var never: [String] = []
        var lonelyDids: [Event] = []
        var lonelyWills: [Event] = []
        var willsAfter: [Event] = []
        var didsBefore: [Event] = []
        for key in keys {
            let calls = all.filter { $0.key == key }
            guard !calls.isEmpty else {
                never.append(key)
                continue
            }
            var open: [ThreadIdentity: [Event]] = [:]
            var pairs: [(will: Event, did: Event)] = []
            for call in calls {
                if call.change == .will {
                    open[call.thread, default: []].append(call)
                } else if let first = open[call.thread]?.first {
                    open[call.thread]?.removeFirst()
                    pairs.append((first, call))
                } else {
                    lonelyDids.append(call)
                }
            }
            lonelyWills += open.values.flatMap { $0 }
            guard !pairs.isEmpty else { continue }
            let value = { (event: Event) in event.state?.value(of: key) }
            for change in changes where change.key == key {
                guard !pairs.contains(where: { value($0.will) == change.old && value($0.did) == change.new }) else {
                    continue
                }
                if let late = pairs.first(where: { value($0.will) == change.new && value($0.did) == change.new }) {
                    willsAfter.append(late.will)
                } else if let early = pairs.first(where: { value($0.did) == change.old }) {
                    didsBefore.append(early.did)
                }
            }
        }
        func named(_ calls: [Event]) -> String {
            let sorted = calls.sorted { $0.number < $1.number }.map { "\($0) (call \($0.number))" }
            return sorted.count <= 1
                ? sorted.joined() : sorted.dropLast().joined(separator: ", ") + " and " + sorted.last!
        }
        var problems: [String] = []
        if !never.isEmpty {
            let quoted = never.map { "\"\($0)\"" }.joined(separator: " or ")
            let others = Set(all.map(\.key)).subtracting(changes.map(\.key) + ["isReady", "isCancelled"])
            let spelling =
                others.isEmpty
                ? "" : "; it announced \(others.sorted().map { "\"\($0)\"" }.joined(separator: ", ")) instead"
            problems.append(
                "\(place) never announced \(quoted): no willChangeValue or didChangeValue for it\(spelling)")
        }
        if !lonelyDids.isEmpty {
            problems.append(
                "\(place) called \(named(lonelyDids)) with no willChangeValue for that key before it on the same thread: on a Mac, key-value observing then notifies nobody, and the queue never learns"
            )
        }
        if !lonelyWills.isEmpty {
            problems.append(
                "\(place) called \(named(lonelyWills)) and no didChangeValue for that key followed on the same thread: nobody learns the change"
            )
        }
        if !willsAfter.isEmpty {
            problems.append(
                "\(place) called \(named(willsAfter)) when the getter already said the new value: the change came before its will, so an observer that asks for the old value gets the new one"
            )
        }
        if !didsBefore.isEmpty {
            problems.append(
                "\(place) called \(named(didsBefore)) while the getter still said the old value: the queue reads the old state then, and never learns the change"
            )
        }
        return problems
    }

    /// The calls made while the lock that the getters take was held, one sentence for the
    /// first; empty if the getters answered at every call. `place` names the code that made a
    /// call, e.g. "finish()".
    public func lockProblems(in place: (Event) -> String) -> [String] {
        guard let held = events.first(where: { $0.state == nil }) else { return [] }
        return [
            "while \(place(held)) called \(held) (call \(held.number)), another thread that read the getters waited \(Self.seconds(getterPatience)) without an answer: the lock they take was held during the call"
        ]
    }

    /// The same, with one name for the code that made every call.
    public func lockProblems(in place: String) -> [String] { lockProblems(in: { _ in place }) }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}

extension AnnouncementWatch {
    /// The recorded calls on one line, for a failure's message: what, on which thread, and
    /// what the getters said then. `threads` names the threads a test knows ("the thread that
    /// called finish()"); any other is "another thread".
    public func calls(threads: [ThreadIdentity: String] = [:]) -> String {
        let seen = events.map { event in
            let state =
                event.state.map { "isExecuting = \($0.isExecuting), isFinished = \($0.isFinished)" }
                ?? "the getters did not answer"
            return "#\(event.number) \(event) on \(threads[event.thread] ?? "another thread") (\(state))"
        }
        return seen.isEmpty ? "no willChangeValue or didChangeValue call" : seen.joined(separator: "; ")
    }
}
