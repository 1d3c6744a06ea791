import Foundation

extension EverythingToKnowPost {
    /// The article's `CompletionOperation` without its two `DispatchQueue.main` hops. The tests use
    /// it so that each bug of the base shows on demand, in any process, without a main queue to
    /// serve. What differs from the article is named beside each line; the rest is the article's:
    /// the initializer, the optional block and its optional completion (`completion?()`).
    // Changed: the name, which adds what sets it apart to the article's, and `open` (the tests
    // subclass it from another module).
    open class CompletionOperationWithoutMainQueue: AsyncOperation, @unchecked Sendable {
        // Changed: @unchecked Sendable, which Swift 6 asks every Operation subclass to restate. Not
        // safe: it adds only a `let`, but its superclass's state has no lock (bug 3).
        public init(completeBlock: Closure<VoidClosure?>?) {
            self.completeBlock = completeBlock
        }

        open override func main() {
            // Changed: no `DispatchQueue.main.async` around the block; it runs here, on the thread
            // that called start().
            completeBlock? { [weak self] in  // as in the article, a completion after the operation is gone does nothing
                // Changed: no `DispatchQueue.main.async` around this either; `.finished` is set on
                // whatever thread calls the completion.
                self?.state = .finished
            }
        }

        private let completeBlock: Closure<VoidClosure?>?
    }
}
