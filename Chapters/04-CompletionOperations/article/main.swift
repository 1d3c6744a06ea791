// The article's call site, as written, on the article's own CompletionOperation
// (`EverythingToKnowPost.CompletionOperation`), with the main queue served.
// Chapter 4's tests run it (`Chapter4ArticleTests.articleCallSite`); `swift run
// chapter4-article` prints the article's four lines. What differs from the article, each named
// beside it: the type's name, the paced delays, and the lines after the call site.
import ChapterSupport
import CompletionOperations
import Foundation

typealias CompletionOperation = EverythingToKnowPost.CompletionOperation  // the article's name for it

let operationQueue = OperationQueue()
operationQueue.maxConcurrentOperationCount = 1

operationQueue.addOperation(
    CompletionOperation { completion in
        // The article waits 1 s and 1.5 s; Pacing.delay scales them (CHAPTER_PACING).
        DispatchQueue.main.asyncAfter(deadline: .now() + Pacing.delay(1)) {
            print("First async operation complete")
            completion?()
        }
        print("First sync operation complete")
    }
)

operationQueue.addOperation(
    CompletionOperation { completion in
        DispatchQueue.main.asyncAfter(deadline: .now() + Pacing.delay(1.5)) {
            print("Second async operation complete")
            completion?()
        }
        print("Second sync operation complete")
    }
)

// Not in the article: a command-line program has no run loop serving the main queue, so the
// article's hops would never run. dispatchMain() serves it and never returns: a barrier ends
// the program once both operations have finished, a watchdog if they never do.
operationQueue.addBarrierBlock { exit(0) }
DispatchQueue.global().asyncAfter(deadline: .now() + 20) {
    print("Gave up after 20 s: the operations did not finish.")
    exit(1)
}
dispatchMain()
