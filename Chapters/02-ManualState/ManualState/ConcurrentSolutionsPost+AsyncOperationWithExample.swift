import Dispatch
import Foundation

extension ConcurrentSolutionsPost {
    /// The post's middle `AsyncOperation`, its example: `main()` prints "Executing" after a
    /// delay, as a stand-in for long-running work, and then calls `finish()`. The post writes
    /// this `main()` into `AsyncOperation` itself, then leaves `main()` to subclasses in its
    /// final version; here it is a `public final` subclass of that final version (the package's
    /// layout), whose name adds what sets it apart to the post's. So its `start()` is the final
    /// one, which also finishes an operation cancelled before it started. The post waits one
    /// second; the delay is a parameter so that the chapter can pace it and the tests shorten it.
    /// Open, so that a subclass can watch it (the chapter's picture does).
    open class AsyncOperationWithExample: AsyncOperation, @unchecked Sendable {
        // @unchecked Sendable: adds only a constant to a thread-safe superclass.
        private let delay: DispatchTimeInterval

        public init(delay: DispatchTimeInterval = .seconds(1)) {
            self.delay = delay
        }

        open override func main() {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
                print("Executing")
                self.finish()
            }
        }
    }
}
