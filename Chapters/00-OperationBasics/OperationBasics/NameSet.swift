import Foundation

/// Names recorded from any thread, read back in a sorted, stable form.
public final class NameSet: @unchecked Sendable {
    // @unchecked Sendable: `names` is only touched inside `lock`.
    private let lock = NSLock()
    private var names: [String] = []

    public init() {}

    @Sendable public func insert(_ name: String) {
        lock.withLock { names.append(name) }
    }

    /// The recorded names, sorted: the order the threads ran in is not part of it.
    public var sorted: [String] { lock.withLock { names.sorted() } }
}
