import AsyncOperations
import Dispatch

/// Runs until `release()`: its work waits on a global queue, so it holds no thread of its
/// queue — a barrier block added after it stays pending for as long as the test wants.
public final class HeldOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only semaphores, which are thread-safe, to a thread-safe base.
    /// Signalled once `main()` runs.
    public let running = DispatchSemaphore(value: 0)
    private let mayFinish = DispatchSemaphore(value: 0)

    public override init() { super.init() }

    public override func main() {
        running.signal()
        DispatchQueue.global().async {
            _ = self.mayFinish.wait(timeout: .now() + 30)
            self.finish()
        }
    }

    /// Lets the operation finish.
    public func release() { mayFinish.signal() }
}

/// Finishes as soon as it runs.
public final class QuickOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    public override init() { super.init() }

    public override func main() { finish() }
}
