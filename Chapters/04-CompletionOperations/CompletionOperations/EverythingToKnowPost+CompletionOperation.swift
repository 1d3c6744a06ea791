import Foundation

extension EverythingToKnowPost {
    /// The article's `CompletionOperation`, as written: `main()` hops to `DispatchQueue.main` to run
    /// the block, and the block's completion hops there again to set `.finished`.
    ///
    /// Both hops need a main thread that serves the main queue (an app's run loop; in a
    /// command-line program `dispatchMain()` or `RunLoop.main`). They also hide bug 1 most of the
    /// time: `start()` sets `.executing` right after `main()` has only scheduled the first hop, so
    /// the operation ends "executing" only when both hops run before that line — a race, which
    /// `Scripts/benchmark` counts (chapter 4's section of Chapters/MEASUREMENTS.md). The article's
    /// call site runs against it in `chapter4-article` (`Chapter4ArticleTests.articleCallSite`).
    // Changed: `open`.
    open class CompletionOperation: AsyncOperation, @unchecked Sendable {
        // Changed: @unchecked Sendable (Swift 6 asks for it). Not safe: it adds only a `let`, but
        // its superclass's state has no lock (bug 3).
        public init(completeBlock: Closure<VoidClosure?>?) {
            self.completeBlock = completeBlock
        }

        open override func main() {
            DispatchQueue.main.async { [weak self] in
                self?.completeBlock? {
                    DispatchQueue.main.async {
                        self?.state = .finished
                    }
                }
            }
        }

        private let completeBlock: Closure<VoidClosure?>?
    }
}
