import Dispatch
import Foundation

/// What an operation's getters said at one moment.
struct StateSample: Sendable, Equatable, CustomStringConvertible {
    let isExecuting: Bool
    let isFinished: Bool
    let isCancelled: Bool

    init(of operation: Operation) {
        isExecuting = operation.isExecuting
        isFinished = operation.isFinished
        isCancelled = operation.isCancelled
    }

    var description: String {
        "isExecuting = \(isExecuting), isFinished = \(isFinished), isCancelled = \(isCancelled)"
    }
}

/// Watches one operation from outside, as the queue and its dependents see it: a dependent
/// that starts when the queue learns that the operation finished, the completion block, and
/// what the operation said at the moment it announced "isFinished".
///
/// That moment is seen differently on each platform. On Linux, `didChangeValue(forKey:
/// "isFinished")` releases the dependents before it returns and asks each one `isReady`: the
/// watching dependent reads the operation's getters from there. On Darwin, a key-value
/// observer of "isFinished" is notified from inside the same call, and reads them there.
final class Watch: Sendable {
    let operation: Operation
    /// Raised when the dependent starts: the queue machinery learned that the operation finished.
    let learned = Signal()
    private let learnedMoment = Locked<Int?>(nil)
    let dependentRuns = Tally()
    let completions = Tally()
    private let armed = Locked(false)
    private let announced = Locked<StateSample?>(nil)
    private let readResult: (@Sendable (Operation) -> ResultShape?)?
    private let resultAnnounced = Locked<ResultShape??>(nil)
    /// Key-value observing (Darwin): every notification of "isExecuting" and "isFinished".
    let notes = Locked<[KeyValueNote]>([])
    private let executingHook = Locked<(@Sendable () -> Void)?>(nil)
    #if canImport(ObjectiveC)
        private let observer = Locked<KeyValueObserver?>(nil)
    #endif
    #if os(Linux)
        /// Set up by `attach(holdable: true)`: lets the kit hold Foundation's lock of the operation.
        let hold = Locked<FoundationLockHold?>(nil)
    #endif

    init(_ operation: Operation, readResult: (@Sendable (Operation) -> ResultShape?)? = nil) {
        self.operation = operation
        self.readResult = readResult
    }

    /// The operation's result when it announced "isFinished": nil before, `.some(nil)` if it
    /// had none then (or no way to read it was given).
    var resultAtAnnouncement: ResultShape?? { resultAnnounced.current }

    /// Runs `hook` once, from inside the first notification that the operation is executing
    /// (Darwin: on the thread that announces it, before the announcement returns).
    func onExecuting(_ hook: @escaping @Sendable () -> Void) {
        executingHook.withLock { $0 = hook }
    }

    /// What the getters said when the operation announced "isFinished"; nil before.
    var atAnnouncement: StateSample? { announced.current }
    /// When the dependent started.
    var learnedAt: Int? { learnedMoment.current }

    /// Sets up the dependent, the completion block and (on Darwin) the observer.
    ///
    /// Call it before the operation is queued, on a thread the kit can abandon: Foundation
    /// takes the operation's own lock here, and a subclass may override `completionBlock`.
    /// With `holdable` (Linux), the completion block lets the kit hold that lock later
    /// (`FoundationLockHold`).
    func attach(holdable: Bool = false) {
        let completions = completions
        #if os(Linux)
            if holdable {
                let hold = FoundationLockHold()
                self.hold.withLock { $0 = hold }
                operation.completionBlock = hold.completionBlock { completions.add() }
            } else {
                operation.completionBlock = { completions.add() }
            }
        #else
            operation.completionBlock = { completions.add() }
        #endif
        let dependent = WatchingDependent(of: self)
        dependent.addDependency(operation)
        // A queue of its own: the operation's queue may be serial, suspended, or full.
        let queue = OperationQueue()
        queue.name = "OperationContract.watch"
        queue.addOperation(dependent)
        // Only now: Foundation asks the dependent `isReady` while it is set up, and the
        // operation's getters must not be read then (they may never answer).
        armed.withLock { $0 = true }
        #if canImport(ObjectiveC)
            let observer = KeyValueObserver(of: operation, watch: self)
            self.observer.withLock { $0 = observer }
            observer.start()
        #endif
    }

    #if os(Linux)
        /// Holds Foundation's lock of the operation (`FoundationLockHold`).
        ///
        /// Nil if it could not be taken, or `attach(holdable: true)` did not prepare it. The
        /// kit must `release()` it.
        func holdFoundationLock() -> FoundationLockHold? {
            guard let hold = hold.current else { return nil }
            let completions = completions
            guard hold.engage(operation, completion: { completions.add() }) else {
                hold.release()  // a hold that comes late lets go at once
                return nil
            }
            return hold
        }
    #endif

    /// Stops observing (Darwin).
    ///
    /// Call it once the operation has finished; an operation that never finished keeps its
    /// observer (quarantined) instead.
    func detach() {
        #if canImport(ObjectiveC)
            // The observer holds the watch: let go of it, or neither is ever freed.
            observer.withLock { observer in
                defer { observer = nil }
                return observer
            }?.stop()
        #endif
    }

    /// Keeps the operation and everything watching it for the rest of the process: it never
    /// finished, so freeing it could leave Foundation with a dangling pointer.
    func quarantine(with others: [any AnyObject & Sendable] = []) {
        var kept: [any AnyObject & Sendable] = [operation, self] + others
        #if canImport(ObjectiveC)
            if let observer = observer.current { kept.append(observer) }
        #endif
        Quarantine.keep(kept)
    }

    /// How many times an observer heard "isFinished" announced as true (Darwin; nil on Linux).
    var finishedNotifications: Int? {
        #if canImport(ObjectiveC)
            return notes.current.filter { $0.key == "isFinished" && !$0.isPrior && $0.value }.count
        #else
            return nil
        #endif
    }

    /// Whether an observer heard "isExecuting" announced as true (Darwin; nil on Linux).
    var heardExecuting: Bool? {
        #if canImport(ObjectiveC)
            return notes.current.contains { $0.key == "isExecuting" && !$0.isPrior && $0.value }
        #else
            return nil
        #endif
    }

    fileprivate func sampleAnnouncement() {
        guard armed.current, announced.current == nil else { return }
        let sample = StateSample(of: operation)
        guard sample.isFinished else { return }
        let result = readResult?(operation)
        let first = announced.withLock { announced in
            defer { announced = announced ?? sample }
            return announced == nil
        }
        if first { resultAnnounced.withLock { $0 = .some(result) } }
    }

    fileprivate func dependentStarted() {
        learnedMoment.withLock { $0 = $0 ?? Moment.next() }
        dependentRuns.add()
        learned.raise()
    }

    fileprivate func heard(_ note: KeyValueNote) {
        notes.withLock { $0.append(note) }
        if note.key == "isFinished" && !note.isPrior { sampleAnnouncement() }
        if note.key == "isExecuting" && !note.isPrior && note.value {
            executingHook.withLock { hook in
                defer { hook = nil }
                return hook
            }?()
        }
    }
}

/// One key-value notification (Darwin): the key, whether it came before the change
/// (`willChangeValue`, a "prior" notification) or after it, and the key's value then.
struct KeyValueNote: Sendable {
    let key: String
    let isPrior: Bool
    let value: Bool
}

/// The dependent that tells the watch when the queue machinery learned that the operation
/// finished.
///
/// Nothing holds it but its queue, which lets go of it once it has run.
private final class WatchingDependent: Operation, @unchecked Sendable {
    // @unchecked Sendable: only a constant, itself Sendable.
    private let watch: Watch

    init(of watch: Watch) {
        self.watch = watch
    }

    override var isReady: Bool {
        // On Linux, the operation's didChangeValue(forKey: "isFinished") asks this getter
        // before it returns: the moment the operation announced its finish.
        watch.sampleAnnouncement()
        return super.isReady
    }

    override func main() {
        watch.dependentStarted()
    }
}

#if os(Linux)
    /// Holds Foundation's own lock of an operation, to stop it exactly where Foundation reads its
    /// getters (Linux).
    ///
    /// When an operation announces a change, Linux's Foundation reads `isExecuting` (or
    /// `isFinished`) and then takes the operation's internal lock (swift-corelibs-foundation's
    /// `Operation.observeValue(forKeyPath:ofObject:)`). While the kit holds that lock, the
    /// operation stops right there, and the kit reads what Foundation read — on the announcing
    /// thread, nothing of the kit's could run. The lock is taken by setting the operation's
    /// `completionBlock`: Foundation's setter releases the old block while it holds the lock,
    /// and the old block holds a `Key` whose `deinit` waits, on the kit's thread, until the
    /// kit lets go. (Read from that source; if a later Foundation works otherwise, `engage`
    /// returns false and the kit checks without it.)
    final class FoundationLockHold: Sendable {
        /// Raised when the lock is held.
        private let engaged = Signal()
        /// Raised to let go of it.
        private let released = Signal()
        private let token = "OperationContract.hold.\(UUID().uuidString)"
        /// The longest the lock is held, whatever the kit does.
        private static let longest = 10.0 * ProcessSanitizer.stretch

        /// A completion block that calls `body` and holds the key.
        func completionBlock(_ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
            let key = Key(token: token, engaged: engaged, released: released)
            return {
                withExtendedLifetime(key) {}
                body()
            }
        }

        /// Takes Foundation's lock of `operation`, replacing its completion block with one that
        /// calls `body`; true once the lock is held (the kit must `release()` it).
        func engage(_ operation: Operation, completion body: @escaping @Sendable () -> Void) -> Bool {
            let token = token
            onKitThread("OperationContract.hold") {
                Thread.current.threadDictionary[token] = true
                operation.completionBlock = body
            }
            return engaged.waitBlocking(seconds: 1 * ProcessSanitizer.stretch)
        }

        /// Lets go of the lock.
        func release() { released.raise() }

        /// What the old completion block holds.
        private final class Key: Sendable {
            let token: String
            let engaged: Signal
            let released: Signal

            init(token: String, engaged: Signal, released: Signal) {
                self.token = token
                self.engaged = engaged
                self.released = released
            }

            deinit {
                // Only inside the kit's setter: anywhere else (Foundation's completion run),
                // it goes at once.
                guard Thread.current.threadDictionary[token] != nil else { return }
                engaged.raise()
                _ = released.waitBlocking(seconds: FoundationLockHold.longest)
            }
        }
    }
#endif

#if canImport(ObjectiveC)
    /// A key-value observer of "isExecuting" and "isFinished", with prior notifications.
    private final class KeyValueObserver: NSObject, @unchecked Sendable {
        // @unchecked Sendable: constants, and a flag under a lock.
        private static let keys = ["isExecuting", "isFinished"]
        private let operation: Operation
        private let watch: Watch
        private let observing = Locked(false)

        init(of operation: Operation, watch: Watch) {
            self.operation = operation
            self.watch = watch
        }

        func start() {
            observing.withLock { $0 = true }
            for key in Self.keys { operation.addObserver(self, forKeyPath: key, options: [.prior], context: nil) }
        }

        func stop() {
            let wasObserving = observing.withLock { observing in
                defer { observing = false }
                return observing
            }
            guard wasObserving else { return }
            for key in Self.keys { operation.removeObserver(self, forKeyPath: key) }
        }

        override func observeValue(
            forKeyPath keyPath: String?, of object: Any?, change: [NSKeyValueChangeKey: Any]?,
            context: UnsafeMutableRawPointer?
        ) {
            guard let keyPath, Self.keys.contains(keyPath) else { return }
            let isPrior = (change?[.notificationIsPriorKey] as? Bool) ?? false
            let value = keyPath == "isFinished" ? operation.isFinished : operation.isExecuting
            watch.heard(KeyValueNote(key: keyPath, isPrior: isPrior, value: value))
        }
    }
#endif
