import AsyncOperations

/// The request an operation has in flight, kept so that a cancellation can stop it — also a
/// cancellation that comes before the request is stored (between `start()`'s look at
/// `isCancelled` and the end of `main()`).
///
/// The operation calls `hold(_:)` from `main()` and `stop()` from `cancel(with:)`; whichever
/// comes second cancels the request, and tells the caller that it is the one to finish.
public final class InFlightRequest: Sendable {
    private let state = Locked<(request: (any CancellableRequest)?, stopped: Bool)>((nil, false))

    public init() {}

    /// Keeps `request`. Returns false if `stop()` came first: then the request is cancelled
    /// at once, and the caller finishes the operation as cancelled.
    public func hold(_ request: any CancellableRequest) -> Bool {
        let stopped = state.withLock { state in
            state.request = request
            return state.stopped
        }
        if stopped { request.cancel() }
        return !stopped
    }

    /// Cancels the request, or the one `hold(_:)` will get. Returns true if a request was
    /// cancelled now: then the caller finishes the operation (a cancelled request never
    /// answers).
    public func stop() -> Bool {
        let request = state.withLock { state in
            state.stopped = true
            return state.request
        }
        request?.cancel()
        return request != nil
    }
}
