// SPDX-License-Identifier: MIT
// Copyright (c) 2026 the AsyncOperationsPlayground authors: LICENSE, at the repository's root.
import Foundation

/// A value that is only ever read or written while holding an `NSLock`.
///
/// The value must be `Sendable`: what `withLock` returns leaves the lock, and a non-Sendable
/// reference handed out that way could be used by two threads at once with no lock at all.
///
/// Why not `Mutex` from Synchronization? It needs macOS 15 / iOS 18, and on Linux
/// ThreadSanitizer reported races in this package's tests between two `withLock` bodies of
/// the same `Mutex`, which the lock does order. `NSLock` is a pthread mutex, which
/// ThreadSanitizer understands everywhere. (``AsyncOperation`` keeps its own `NSLock` inline
/// instead: one object less per operation, which the benchmark notices.)
///
/// ```swift
/// let count = Locked(0)
/// DispatchQueue.concurrentPerform(iterations: 100) { _ in count.withLock { $0 += 1 } }
/// ```
nonisolated public final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `withLock`, under `lock`, and it is
    // Sendable, so nothing that leaves the lock can be shared unsafely.
    private let lock = NSLock()
    private var value: Value

    /// Keeps `value` behind the lock.
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    ///
    /// Keep it short, and never call out to code that may take this lock again (such as
    /// `didChangeValue`) from inside it.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
