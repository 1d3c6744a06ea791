// Exercise 4 — an operation that finishes when its callback is called (about 5 minutes).
// Chapter 4: Chapters/04-CompletionOperations/README.md. Check it: Scripts/workshop check 4
import AsyncOperations
import Dispatch
import Foundation

/// Runs `work`, which starts something and calls the callback it is given when that is done.
/// Built on the finished base operation of chapter 3 (`AsyncOperation`), which provides a
/// thread-safe `finish()` that may be called more than once. (`open` so that the tests can
/// watch it, from a subclass, as its `main()` runs and returns.)
open class CallbackOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to a thread-safe superclass.
    public typealias Work = @Sendable (_ complete: @escaping @Sendable () -> Void) -> Void

    private let work: Work

    public init(_ work: @escaping Work) {
        self.work = work
    }

    open override func main() {
        // TODO: the work runs, but calling its callback does nothing, so the operation never
        // finishes and a serial queue never starts the next one. Give the work a callback
        // that finishes this operation.
        work {}
    }
}
