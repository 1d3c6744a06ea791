/// A data task, as the post's operations use it.
public protocol SessionDataTask: Sendable {
    func resume()
    func cancel()
}
