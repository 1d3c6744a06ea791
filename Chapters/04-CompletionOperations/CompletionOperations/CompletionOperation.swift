// SPDX-License-Identifier: MIT
// Copyright (c) 2026 the AsyncOperationsPlayground authors: LICENSE, at the repository's root.
// In this package the base is a module of its own; copied into an app, it is in the app's module.
#if canImport(AsyncOperations)
    import AsyncOperations
#endif

/// An operation that runs a closure and finishes when the closure calls the completion
/// callback it was given — from any thread, at any later time, or before it returns.
///
/// It is the finished base operation of chapter 3 (`AsyncOperation`) plus one closure, so it
/// inherits its guarantees: a cancelled operation that has not started never runs the
/// closure, and calling the callback a second time does nothing.
open class CompletionOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a `let` to a thread-safe superclass.

    /// The work: it starts something and calls `complete` when that is done.
    ///
    /// `@Sendable` because the queue runs it on one of its own threads, not where it was
    /// written.
    public typealias Work = @Sendable (_ complete: @escaping @Sendable () -> Void) -> Void

    /// Work that can be stopped: besides `complete`, it gets `onCancel`, with which it
    /// registers what stops it (cancel a request, a timer). The handler runs once, when the
    /// operation is cancelled — at once if it already is; the work still calls `complete`.
    public typealias StoppableWork =
        @Sendable (
            _ complete: @escaping @Sendable () -> Void,
            _ onCancel: @escaping @Sendable (_ stop: @escaping @Sendable () -> Void) -> Void
        ) -> Void

    private let work: StoppableWork

    public init(_ work: @escaping Work) {
        self.work = { complete, _ in work(complete) }
    }

    public init(stoppable work: @escaping StoppableWork) {
        self.work = work
    }

    open override func main() {
        // The callback keeps the operation alive until the work calls it; finish() is
        // idempotent, so a callback called twice finishes once.
        work({ self.finish() }, { stop in self.onCancel(stop) })
    }
}
