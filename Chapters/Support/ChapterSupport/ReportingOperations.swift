import Foundation
import Recording

extension BlockOperation {
    /// A `BlockOperation` that runs `block`, with `name` as its Foundation `name`.
    ///
    /// In a recorded run (`--timeline`) it is a subclass that also reports what happens to it —
    /// `start()`, executing, cancelled, finished, its completion block — for the chapter's
    /// pictures: Foundation's own operations report nothing (there is no key-value observing
    /// on Linux). Otherwise it is a plain `BlockOperation`.
    public static func named(_ name: String, _ block: @escaping @Sendable () -> Void) -> BlockOperation {
        let operation = Recorder.current == nil ? BlockOperation(block: block) : ReportingBlockOperation(block: block)
        operation.name = name
        return operation
    }
}

extension Operation {
    /// This operation, with `name` as its Foundation `name` (which labels its lane in the
    /// chapter's pictures): `CompletionOperation { … }.named("First")`.
    public func named(_ name: String) -> Self {
        self.name = name
        Recorder.current?.register(self)  // a lane, even if it does not report its creation itself
        return self
    }
}

extension OperationQueue {
    /// An `OperationQueue` with `name` as its Foundation `name`.
    ///
    /// In a recorded run (`--timeline`) it is a subclass that also reports what its callers do —
    /// adding operations, waiting for them, cancelling them, suspending it — for the chapter's
    /// pictures. Otherwise it is a plain `OperationQueue`.
    public static func named(_ name: String) -> OperationQueue {
        let queue = Recorder.current == nil ? OperationQueue() : ReportingOperationQueue()
        queue.name = name
        return queue
    }
}

/// Declares that `operations` run at the same time: the order between their events (of
/// `kinds` only, if given) is not caused, so the picture draws their n-th events of each kind
/// together, in one column.
public func drawnTogether(_ operations: [Operation], only kinds: Set<EventKind>? = nil) {
    Recorder.current?.inAnyOrder(operations, kinds: kinds)
}

/// `drawnTogether([a, b])`.
public func drawnTogether(_ operations: Operation...) {
    drawnTogether(operations)
}

/// For the chapter's pictures, when the run is recorded: a note in the lane of the code that
/// calls it ("heldWork.resume()"), for a step of the story that nothing else reports.
public func drawNote(_ text: String) {
    Recorder.current?.recordHere(.note, detail: text)
}

/// For the chapter's pictures, when the run is recorded: work named `lane` that is not an
/// `Operation` (a coordinated operation, a task) begins. Drawn as an executing bar.
public func workBegins(_ lane: String) {
    Recorder.current?.record(.executing, lane: lane)
}

/// For the chapter's pictures: the work named `lane` has ended (it calls its completion).
public func workEnds(_ lane: String) {
    Recorder.current?.record(.finished, lane: lane)
}

/// A `BlockOperation` that reports its events; `BlockOperation.named` makes one in a recorded run.
final class ReportingBlockOperation: BlockOperation, @unchecked Sendable {
    // @unchecked Sendable: adds no stored state to BlockOperation, which is thread-safe.

    override init() {
        super.init()
        Recorder.current?.register(self)
    }

    override func start() {
        Recorder.current?.record(.start, self, after: dependencies)
        // Cancelled before it started: the base start() finishes it without running its blocks.
        if isCancelled { Recorder.current?.record(.finished, self, detail: "without running its block") }
        super.start()
    }

    override func main() {
        guard let recorder = Recorder.current else { return super.main() }
        recorder.reporting {
            recorder.record(.executing, self)  // the base start() set it before calling main()
            recorder.withLane(of: self) { super.main() }
            // The base start() marks it finished as soon as main() returns: whatever that lets
            // go on (a waiter, a dependent) comes after this report.
            recorder.record(.finished, self)
        }
    }

    override func cancel() {
        if !isCancelled, !isFinished { Recorder.current?.record(.cancelled, self) }
        super.cancel()
    }

    override var completionBlock: (@Sendable () -> Void)? {
        get { super.completionBlock }
        set { super.completionBlock = Recorder.current?.reportingCompletion(of: self, newValue) ?? newValue }
    }
}

/// An `OperationQueue` that reports what its callers do; `OperationQueue.named` makes one in a
/// recorded run.
final class ReportingOperationQueue: OperationQueue, @unchecked Sendable {
    // @unchecked Sendable: adds no stored state to OperationQueue, which is thread-safe.

    /// Set on a thread while `addOperations` runs: should Foundation add each operation
    /// through `addOperation(_:)` (Darwin's does not say), each is reported once.
    private static let addingKey = "ReportingOperationQueue.adding"

    override func addOperation(_ operation: Operation) {
        if Thread.current.threadDictionary[Self.addingKey] == nil {
            Recorder.current?.record(.added, operation, onlyIfReporting: true)
        }
        super.addOperation(operation)
    }

    override func addOperations(_ operations: [Operation], waitUntilFinished wait: Bool) {
        let recorder = Recorder.current
        for operation in operations { recorder?.record(.added, operation, onlyIfReporting: true) }
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
}
