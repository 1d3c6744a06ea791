// Exercise 1 — a synchronous operation that really waits for its work (about 10 minutes).
// Chapter 1: Chapters/01-SyncOnly/README.md. Check it: Scripts/workshop check 1
import Dispatch
import Foundation

/// Runs `work` on `workQueue`, as chapter 1's operation does.
///
/// The queue considers an operation finished as soon as its `main()` returns. Without
/// managing any state (that is chapter 2), the only correct synchronous operation is one
/// whose `main()` returns after its work is done.
public final class WaitingOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: constants only.
    private let workQueue: DispatchQueue
    private let work: @Sendable () -> Void

    public init(on workQueue: DispatchQueue, work: @escaping @Sendable () -> Void) {
        self.workQueue = workQueue
        self.work = work
    }

    public override func main() {
        // TODO: main() returns at once, while the work still waits on `workQueue`: the queue
        // reports the operation finished too early. Make main() return only once the work
        // has run.
        workQueue.async(execute: work)
    }
}
