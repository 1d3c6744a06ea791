import Foundation
import Recording

extension BlockOperation {
    /// A `BlockOperation` that runs `block`, with `name` as its Foundation `name`, and that reports
    /// what happens to it — `start()`, executing, cancelled, finished, its completion block — to
    /// the chapter's pictures when the run is recorded: a small subclass, which changes nothing
    /// else (each override calls `BlockOperation`'s own). Foundation's operations report nothing
    /// themselves, and there is no key-value observing on Linux.
    public static func named(_ name: String, _ block: @escaping @Sendable () -> Void) -> BlockOperation {
        let operation = ReportingBlockOperation(block: block)
        operation.name = name
        return operation
    }
}

extension Operation {
    /// This operation, with `name` as its Foundation `name`, which labels its lane in the
    /// chapter's pictures: `Reporting.CompletionOperation { … }.named("First")`.
    public func named(_ name: String) -> Self {
        self.name = name
        Recorder.current?.register(self)  // a lane, even if it does not report its creation itself
        return self
    }
}

extension OperationQueue {
    /// An `OperationQueue` with `name` as its Foundation `name`, that reports what its callers do
    /// — adding operations, waiting for them, cancelling them, suspending it — to the chapter's
    /// pictures when the run is recorded: a small subclass, which changes nothing else.
    public static func named(_ name: String) -> OperationQueue {
        let queue = ReportingOperationQueue()
        queue.name = name
        return queue
    }
}

/// The chapters' reporting subclasses of their libraries' operations: each chapter's executable
/// adds its own (`Reporting.UploadOperation` in `chapter3/Reporting.swift`), which watches one
/// of the chapter's operations with an `OperationWatch` and changes nothing else.
public enum Reporting {}

/// What a reporting subclass tells the chapter's pictures about its operation, from what any
/// subclass sees. Nothing when the run is not recorded.
///
/// A reporting subclass overrides the points where an operation's life shows, calls its
/// superclass's own, and passes on what it saw:
/// - `start()`: reported, then run with the thread in the operation's lane;
/// - `isExecuting`, `isFinished`, `isCancelled`: the first read that answers true is reported as
///   the operation becoming executing, finished, cancelled. Foundation reads them itself while
///   an operation announces a change — on Linux from inside `didChangeValue(forKey:)`, before it
///   tells the queue, dependents and waiters — and any other code reads them too, so nothing
///   can act on a change before it is reported. (`willChangeValue(forKey:)` and
///   `didChangeValue(forKey:)` themselves cannot be overridden on Linux: they are methods of an
///   extension of `Operation`. On Darwin, key-value observing reads the same getters; inferred,
///   not run on a Mac.)
/// - `main()`: run with the thread in the operation's lane;
/// - for an asynchronous operation, whose `cancel()` a subclass may not be able to override, an
///   `onCancel` handler registered first, which runs once when a cancel takes effect.
///
/// Closures that the operation calls later, from other threads (its work, a report), are
/// wrapped before the operation exists (`inLane`, `work`): the watch is made first, and learns
/// its operation's lane once it is made (`made(_:)`).
public final class OperationWatch: @unchecked Sendable {
    // @unchecked Sendable: `reported` and `lane` are only touched under `lock`.
    private let recorder: Recorder?
    private let lock = NSLock()
    private var reported: Set<EventKind> = []
    private var lane: Lane?

    /// A watch that reports to `recorder`: the run's recording, if it has one.
    public init(reportingTo recorder: Recorder? = Recorder.current) {
        self.recorder = recorder
    }

    /// Gives `operation`, just made, its lane: lanes are drawn in the order operations were made.
    public func made(_ operation: Operation) {
        guard let recorder else { return }
        let lane = recorder.watch(operation)
        lock.withLock { self.lane = lane }
    }

    /// `start()`: reports it, with the dependencies it waited for, then runs `start` (the
    /// superclass's) in the operation's lane.
    public func start(_ operation: Operation, _ start: () -> Void) {
        guard let recorder else { return start() }
        _ = operation.isCancelled  // a cancel that took effect before this start is reported before it
        recorder.report(.start, of: operation, after: operation.dependencies)
        recorder.withLane(of: operation, start)
    }

    /// `main()` of an asynchronous operation: runs `main` (the superclass's) in the operation's
    /// lane. With `work`, the operation's work starts with it, and ends when it finishes the
    /// operation — drawn just before "finished" — as the chapters' work does: its callback (the
    /// upload's end, the request's answer, its cancellation) is what calls `finish`.
    public func main(_ operation: Operation, work: Bool = false, _ main: () -> Void) {
        guard let recorder else { return main() }
        if work { reportOnce(.workStarted, of: operation) }
        recorder.withLane(of: operation, main)
    }

    /// `main()` of a synchronous operation, whose `start()` is `Operation`'s: executing while
    /// `main` (the superclass's) runs in the operation's lane, finished once it has returned —
    /// `Operation.start()` marks it finished right after, before anyone can see it.
    public func synchronousMain(_ operation: Operation, reportingReturn: Bool = false, _ main: () -> Void) {
        guard let recorder else { return main() }
        recorder.reporting {
            reportOnce(.executing, of: operation)
            recorder.withLane(of: operation, main)
            if reportingReturn { recorder.report(.mainReturned, of: operation) }
            reportOnce(.finished, of: operation)
        }
    }

    /// The superclass's `isExecuting`, `value`; its first `true` is reported.
    public func executing(_ operation: Operation, _ value: Bool) -> Bool {
        if value { reportOnce(.executing, of: operation) }
        return value
    }

    /// The superclass's `isFinished`, `value`; its first `true` is reported, after the end of
    /// the work that `main(_:work:_:)` began, if any.
    public func finished(_ operation: Operation, _ value: Bool) -> Bool {
        if value { reportOnce(.finished, of: operation) }
        return value
    }

    /// The superclass's `isCancelled`, `value`; its first `true` is reported.
    public func cancelled(_ operation: Operation, _ value: Bool) -> Bool {
        if value { reportOnce(.cancelled, of: operation) }
        return value
    }

    /// A cancel took effect: for an `onCancel` handler (`onCancel(watch.cancelTookEffect)`,
    /// registered first), which runs once when it does, before any handler registered later.
    @Sendable public func cancelTookEffect() {
        reportOnce(.cancelled)
    }

    /// `block`, made to report `.completionBlock` when it begins: what a reporting subclass's
    /// `completionBlock` setter stores.
    public func completion(of operation: Operation, _ block: (@Sendable () -> Void)?) -> (@Sendable () -> Void)? {
        recorder?.reportingCompletion(of: operation, block) ?? block
    }

    /// `body`, run in the lane of the operation once it is made: what it prints is drawn there.
    public func inLane<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard let recorder, let lane = lock.withLock({ lane }) else { return try body() }
        return try recorder.withLane(lane, body)
    }

    /// `work`, run as the operation's work: reported when it starts and ends, in its lane.
    public func work(_ work: () -> Void) {
        guard let recorder, let lane = lock.withLock({ lane }) else { return work() }
        recorder.record(.workStarted, in: lane)
        recorder.withLane(lane, work)
        recorder.record(.workEnded, in: lane)
    }

    /// `work`, run as the operation's asynchronous work (a task's closure): reported when it
    /// starts and when it returns or throws. (A task moves between threads: what it prints is
    /// not drawn in the operation's lane.)
    public func asynchronousWork<Value>(_ work: () async throws -> Value) async rethrows -> Value {
        guard let recorder, let lane = lock.withLock({ lane }) else { return try await work() }
        recorder.record(.workStarted, in: lane)
        defer { recorder.record(.workEnded, in: lane) }
        return try await work()
    }

    /// Reports `kind` the first time only, of `operation` (or of the lane it was given when it
    /// was made); "finished" ends the work that `main(_:work:_:)` began. Under the watch's lock,
    /// so that a second reader waits for the first one's report: nothing that follows a change
    /// is recorded before it.
    private func reportOnce(_ kind: EventKind, of operation: Operation? = nil) {
        guard let recorder else { return }
        lock.withLock {
            let endsWork = kind == .finished && reported.contains(.workStarted)
            for kind in endsWork ? [.workEnded, kind] : [kind] where reported.insert(kind).inserted {
                if let operation {
                    recorder.report(kind, of: operation)
                } else if let lane {
                    recorder.record(kind, in: lane)
                }
            }
        }
    }
}

/// A `BlockOperation` that reports its events; `BlockOperation.named` makes one.
final class ReportingBlockOperation: BlockOperation, @unchecked Sendable {
    // @unchecked Sendable: adds a thread-safe watch to BlockOperation, which is thread-safe.
    private let watch = OperationWatch()

    override init() {
        super.init()
        watch.made(self)
    }

    override func start() {
        watch.start(self) {
            // Cancelled before it started: the base start() finishes it without running its blocks.
            if isCancelled { Recorder.current?.report(.finished, of: self, detail: "without running its block") }
            super.start()
        }
    }

    override func main() {
        watch.synchronousMain(self) { super.main() }
    }

    override func cancel() {
        if !isCancelled, !isFinished { Recorder.current?.report(.cancelled, of: self) }
        super.cancel()
    }

    override var completionBlock: (@Sendable () -> Void)? {
        get { super.completionBlock }
        set { super.completionBlock = watch.completion(of: self, newValue) }
    }
}

/// An `OperationQueue` that reports what its callers do; `OperationQueue.named` makes one.
final class ReportingOperationQueue: OperationQueue, @unchecked Sendable {
    // @unchecked Sendable: adds no stored state to OperationQueue, which is thread-safe.

    /// Set on a thread while `addOperations` runs: should Foundation add each operation
    /// through `addOperation(_:)` (Darwin's does not say), each is reported once.
    private static let addingKey = "ReportingOperationQueue.adding"

    override func addOperation(_ operation: Operation) {
        if Thread.current.threadDictionary[Self.addingKey] == nil { reportAdded(operation) }
        super.addOperation(operation)
    }

    override func addOperations(_ operations: [Operation], waitUntilFinished wait: Bool) {
        let recorder = Recorder.current
        for operation in operations { reportAdded(operation) }
        if wait { recorder?.recordHere(.waits, detail: "addOperations") }
        Thread.current.threadDictionary[Self.addingKey] = true
        super.addOperations(operations, waitUntilFinished: wait)
        Thread.current.threadDictionary[Self.addingKey] = nil
        if wait { recorder?.recordHere(.waitReturned) }
    }

    override func waitUntilAllOperationsAreFinished() {
        super.waitUntilAllOperationsAreFinished()
        // Its return alone: the operations may be running, or done, before the wait begins.
        Recorder.current?.recordHere(.waitReturned, detail: "waitUntilAllOperationsAreFinished")
    }

    override func cancelAllOperations() {
        Recorder.current?.recordHere(.note, detail: "cancelAllOperations()")
        super.cancelAllOperations()
    }

    override var isSuspended: Bool {
        // Before the change: whatever resuming lets start comes after the report.
        willSet {
            if newValue != isSuspended { Recorder.current?.recordHere(.note, detail: "isSuspended = \(newValue)") }
        }
    }

    /// The caller added `operation`: drawn in its lane, as the caller's doing. Only an operation
    /// that reports itself (it has a lane from its creation): one that reports nothing would seem
    /// to wait in the queue for ever.
    private func reportAdded(_ operation: Operation) {
        Recorder.current?.report(.added, of: operation, byCaller: true, onlyIfReporting: true)
    }
}
