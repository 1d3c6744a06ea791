import AsyncOperations
import Dispatch

/// A local request: answers once after a delay, or never if cancelled before.
public final class LocalRequest<Value: Sendable>: CancellableRequest, Sendable {
    private let delay: DispatchTimeInterval
    private let compute: @Sendable () -> Result<Value, any Error>
    /// The completion, until it is called or the request is cancelled.
    private let completion = Locked<(@Sendable (Result<Value, any Error>) -> Void)?>(nil)

    init(after delay: DispatchTimeInterval, _ compute: @escaping @Sendable () -> Result<Value, any Error>) {
        self.delay = delay
        self.compute = compute
    }

    /// Starts the request; `completion` runs on a global queue, at most once.
    func whenDone(_ completion: @escaping @Sendable (Result<Value, any Error>) -> Void) -> Self {
        self.completion.withLock { $0 = completion }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
            // Taken under the lock, called outside it: a completion may cancel other work.
            let completion = self.completion.withLock { completion in
                defer { completion = nil }
                return completion
            }
            completion?(self.compute())
        }
        return self
    }

    /// After this returns, the completion will not be called.
    public func cancel() {
        completion.withLock { $0 = nil }
    }
}
