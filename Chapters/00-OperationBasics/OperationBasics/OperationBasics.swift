import Foundation
import Recording

/// The one word that describes where an operation is in its life.
///
/// An operation is `ready` once its dependencies have finished, `executing` while its work
/// runs, `finished` afterwards; `cancelled` is a flag beside those, set by `cancel()`.
public func state(of operation: Operation) -> String {
    if operation.isFinished { return operation.isCancelled ? "cancelled and finished" : "finished" }
    if operation.isExecuting { return "executing" }
    if operation.isCancelled { return "cancelled" }
    return operation.isReady ? "ready" : "waiting for its dependencies"
}

/// An operation that says when the queue calls `start()` and when `start()` calls `main()`:
/// it shows that a queue runs an operation by calling its `start()`, nothing else.
public final class AnnouncingOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: Operation is itself @unchecked Sendable; this subclass adds only
    // `let` properties set in init.
    private let label: String
    private let report: @Sendable (String) -> Void

    public init(_ name: String, report: @escaping @Sendable (String) -> Void) {
        self.label = name
        self.report = report
        super.init()
        self.name = name
        Recorder.current?.register(self)  // for the chapter's pictures, when recorded
    }

    public override func start() {
        Recorder.current?.record(.start, self)
        Recorder.inLane(of: self) { report("\(label): the queue called start()") }
        super.start()  // the base start() sets executing, calls main(), then sets finished
    }

    public override func main() {
        Recorder.current?.record(.executing, self)
        Recorder.inLane(of: self) { report("\(label): start() called main(), which is \(state(of: self))") }
        // main() returns, and the base start() marks the operation finished.
        Recorder.current?.record(.mainReturned, self)
        Recorder.current?.record(.finished, self)
    }

    public override var completionBlock: (@Sendable () -> Void)? {
        get { super.completionBlock }
        set { super.completionBlock = Recorder.current?.reportingCompletion(of: self, newValue) ?? newValue }
    }
}

/// Names recorded from any thread, read back in a sorted, stable form.
public final class NameSet: @unchecked Sendable {
    // @unchecked Sendable: `names` is only touched inside `lock`.
    private let lock = NSLock()
    private var names: [String] = []

    public init() {}

    @Sendable public func insert(_ name: String) {
        lock.withLock { names.append(name) }
    }

    /// The recorded names, sorted: the order the threads ran in is not part of it.
    public var sorted: [String] { lock.withLock { names.sorted() } }
}

/// How many operations ran at once, at most: `measure` wraps each operation's work.
public final class WidthGauge: @unchecked Sendable {
    // @unchecked Sendable: `running` and `highest` are only touched inside `lock`.
    private let lock = NSLock()
    private var running = 0
    private var highest = 0

    public init() {}

    public func measure(_ work: () -> Void) {
        lock.withLock {
            running += 1
            highest = max(highest, running)
        }
        work()
        lock.withLock { running -= 1 }
    }

    /// The most operations that were running at the same time.
    public var most: Int { lock.withLock { highest } }
}
