import AsyncOperations
import Dispatch

/// An asynchronous operation with no progress of its own, the kind of every chapter before:
/// it overrides `start()` (through `AsyncOperation`), so `OperationQueue.progress` never sees
/// it finish.
public final class QuietAsyncOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: no state of its own; the base class guards its own.
    public override func main() {
        DispatchQueue.global().async { self.finish() }
    }
}
