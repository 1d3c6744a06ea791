/// A request in flight that can be cancelled.
public protocol CancellableRequest: Sendable {
    func cancel()
}
