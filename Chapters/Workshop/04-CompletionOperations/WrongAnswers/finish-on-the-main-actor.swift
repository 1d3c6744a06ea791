// Wrong answer: finish in a main-actor task, where the UI would be told
// Caught by: finishesWithoutTheMainQueue
// Exercise 4 — an operation that finishes when its callback is called.
// Chapter 4: Chapters/04-CompletionOperation/README.md. Check it: Scripts/workshop check 4
import AsyncOperations

/// Runs `work`, which starts something and calls the callback it is given when that is done.
/// Built on the finished base operation of chapter 3 (`AsyncOperation`), which provides a
/// thread-safe `finish()` that may be called more than once.
public final class CallbackOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to a thread-safe superclass.
    public typealias Work = @Sendable (_ complete: @escaping @Sendable () -> Void) -> Void

    private let work: Work

    public init(_ work: @escaping Work) {
        self.work = work
    }

    public override func main() {
        work {
            Task { @MainActor in self.finish() }
        }
    }
}
