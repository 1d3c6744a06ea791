import Foundation
import Recording

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
