import Foundation

/// Chapter 1's delayed print, now on `ManualStateOperation`: the queue waits for it.
///
/// Open, so that a subclass can watch it through the getters the queue reads (the chapter's
/// pictures do); it overrides nothing else.
open class DelayedPrintOperation: ManualStateOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only `let` properties to a thread-safe superclass.
    private let delay: DispatchTimeInterval
    private let workQueue: DispatchQueue
    private let report: @Sendable (String) -> Void

    public init(
        after delay: DispatchTimeInterval,
        on workQueue: DispatchQueue = .global(),
        report: @escaping @Sendable (String) -> Void
    ) {
        self.delay = delay
        self.workQueue = workQueue
        self.report = report
    }

    public override func start() {
        report("Starting")
        super.start()  // ManualStateOperation.start(), not Operation.start()
    }

    public override func main() {
        workQueue.asyncAfter(deadline: .now() + delay) {
            self.report("Executing")
            self.finish()
        }
    }
}
