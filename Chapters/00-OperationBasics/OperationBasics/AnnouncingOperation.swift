import Foundation

/// An operation that says when the queue calls `start()` and when `start()` calls `main()`:
/// it shows that a queue runs an operation by calling its `start()`, nothing else.
///
/// Open, like `Operation` itself: a subclass may watch it too (the chapter's pictures do).
open class AnnouncingOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: Operation is itself @unchecked Sendable; this subclass adds only
    // `let` properties set in init.
    private let label: String
    private let report: @Sendable (String) -> Void

    public init(_ name: String, report: @escaping @Sendable (String) -> Void) {
        self.label = name
        self.report = report
        super.init()
        self.name = name
    }

    open override func start() {
        report("\(label): the queue called start()")
        super.start()  // the base start() sets executing, calls main(), then sets finished
    }

    open override func main() {
        report("\(label): start() called main(), which is \(state(of: self))")
        // main() returns, and the base start() marks the operation finished.
    }
}
