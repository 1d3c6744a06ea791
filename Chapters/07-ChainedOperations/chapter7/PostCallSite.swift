// The post's call site, with the post's names, against the post's own operations
// (SwiftGenericsPost; their base's start() prints "Starting"). What differs from the post, each
// named beside it: the two type names are brought in from the namespace that keeps them beside
// the package's own, the short URL is the local web's, each operation is given that web's
// session (no network here), the queue is named (which labels the chapter's pictures), and the
// result is printed in a short form.
import ChapterSupport
import Foundation
import ResultOperations

func runThePostsCallSite(shortURL: URL, session: LocalURLSession) {
    typealias UnfurlURLOperation = SwiftGenericsPost.UnfurlURLOperation  // the post's names
    typealias FetchTitleChainedOperation = SwiftGenericsPost.FetchTitleChainedOperation

    let queue = OperationQueue.named("queue")  // the post: OperationQueue()
    let unfurl = UnfurlURLOperation(shortURL: shortURL, session: session)  // the post: a bit.ly URL
    let fetchTitle = FetchTitleChainedOperation(session: session)

    // Chain them
    fetchTitle.addDependency(unfurl)

    queue.addOperations([unfurl, fetchTitle], waitUntilFinished: true)

    // The post: print("Result: \(fetchTitle.result!)"), which prefixes the error with its
    // whole module and type path; describe(_:) prints it as "failure(missingInputURL)".
    say("Result: \(describe(fetchTitle.result))")
}
