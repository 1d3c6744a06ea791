import AsyncOperations
import Dispatch
import Foundation
import ManualState
import TestSupport
import Testing

/// `ConcurrentSolutionsPost.AsyncOperation` as written, finishing on a global queue.
/// (Its `start()` prints "Starting", as the post's does.)
final class FinishingOnConcurrentSolutionsPost: ConcurrentSolutionsPost.AsyncOperation, ObservedFinish,
    @unchecked Sendable
{
    // @unchecked Sendable: a Flag only, on the post's thread-safe base.
    let mainRan = Flag()

    func observerLooked() {}

    override func main() {
        mainRan.raise()
        DispatchQueue.global().async { self.finish() }
    }
}
