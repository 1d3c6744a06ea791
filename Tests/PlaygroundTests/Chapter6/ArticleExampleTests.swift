import AsyncOperations
import Dispatch
import Foundation
import ResultOperations
import TestSupport
import Testing

// The article's own example — its `UnfurlURLOperation` and its call site — run against the
// popular base (`PopularResultOperation`), to show what really goes wrong with it.

private let shortURL = URL(string: "https://short.example/ops")!
private let longURL = URL(string: "https://www.example.com/articles/asynchronous-operations")!

/// The article's `UnfurlURLOperation`, re-expressed on `HeadRequester` instead of
/// `URLSession.shared.dataTask`. Same structure: `main()` starts the request and keeps it in
/// `dataTask`; its completion returns at once if the operation is cancelled, else finishes
/// with the URL, a missing redirect, or the underlying error; `cancel()` cancels the request,
/// then calls `cancel(with: .canceled)`.
/// Changes, forced by Swift 6: `dataTask` is kept under a lock (the article writes it in
/// `main()` and reads it in `cancel()`, from two threads, unprotected), and the class says
/// `@unchecked Sendable`. The article's `dataTask?.resume()` has no counterpart: a
/// `HeadRequester`'s request is already running.
final class ArticleUnfurlURLOperation: PopularResultOperation<URL, ArticleUnfurlURLOperation.Error>,
    @unchecked Sendable
{
    // @unchecked Sendable: `dataTask` is a Locked; `shortURL` and `web` are constants.
    enum Error: Swift.Error {
        case canceled
        case missingRedirectURL
        case underlying(error: Swift.Error)
    }

    private let shortURL: URL
    private let web: any HeadRequester
    private let dataTask = Locked<(any CancellableRequest)?>(nil)

    init(shortURL: URL, web: any HeadRequester) {
        self.shortURL = shortURL
        self.web = web
    }

    override func main() {
        let request = web.head(shortURL) { [weak self] response in
            guard self?.isCancelled == false else { return }
            switch response {
            case .failure(let error): self?.finish(with: .failure(.underlying(error: error)))
            case .success(nil): self?.finish(with: .failure(.missingRedirectURL))
            case .success(let longURL?): self?.finish(with: .success(longURL))
            }
        }
        dataTask.withLock { $0 = request }
    }

    override func cancel() {
        dataTask.withLock { $0 }?.cancel()
        cancel(with: .canceled)
    }
}

/// What `URLSession` does with a data task, enough for the article's operation: the request
/// answers when the test says so, and a cancelled request answers at once with an error, as
/// `URLSessionTask.cancel()` makes the completion handler run with `NSURLErrorCancelled`.
final class URLSessionLikeWeb: HeadRequester {
    struct Cancelled: Error {}

    /// Called after a request's completion handler has returned, with what it was given.
    let answered: @Sendable (Result<URL?, any Error>) -> Void
    let requestSent = Flag()
    let answersAtOnce: Bool
    private let pending = Locked<[Request]>([])

    init(answersAtOnce: Bool, answered: @escaping @Sendable (Result<URL?, any Error>) -> Void = { _ in }) {
        self.answersAtOnce = answersAtOnce
        self.answered = answered
    }

    final class Request: CancellableRequest {
        private let completion: Locked<(@Sendable (Result<URL?, any Error>) -> Void)?>

        init(_ completion: @escaping @Sendable (Result<URL?, any Error>) -> Void) {
            self.completion = Locked(completion)
        }

        /// Calls the completion handler once, on a global queue, as URLSession calls it on
        /// its delegate queue.
        func answer(_ response: Result<URL?, any Error>) {
            guard let completion = completion.withLock({ $0.take() }) else { return }
            DispatchQueue.global().async { completion(response) }
        }

        func cancel() { answer(.failure(Cancelled())) }
    }

    func head(_ url: URL, completion: @escaping @Sendable (Result<URL?, any Error>) -> Void) -> any CancellableRequest {
        let answered = self.answered
        let request = Request { response in
            completion(response)
            answered(response)
        }
        if answersAtOnce { request.answer(.success(longURL)) }
        requestSent.raise()
        return request
    }
}

@Suite("Chapter 6 — the article's UnfurlURLOperation on the popular base")
struct ArticleExampleTests {
    @Test("the article's call site: onResult receives the final URL")
    func articleCallSite() async {
        let results = EventLog()
        let delivered = Flag()
        let queue = OperationQueue()
        let unfurlOperation = ArticleUnfurlURLOperation(shortURL: shortURL, web: URLSessionLikeWeb(answersAtOnce: true))
        unfurlOperation.onResult = { result in
            results.record("Operation finished with: \(outcome(result))")
            delivered.raise()
        }
        enqueueAsTheArticleDoes([unfurlOperation], on: queue)
        #expect(await delivered.wait())
        #expect(results.events == ["Operation finished with: success(\(longURL))"])
        #expect(await queueLearnsFinished(unfurlOperation))
    }

    @Test(
        """
        cancelAllOperations() with one unfurl running and one waiting: no crash, both results are \
        failure(canceled) — but the running one never finishes, so neither does the queue
        """)
    func cancelAllStallsTheQueue() async {
        let completionReturned = Flag()
        let web = URLSessionLikeWeb(answersAtOnce: false) { _ in completionReturned.raise() }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let running = ArticleUnfurlURLOperation(shortURL: shortURL, web: web)
        let pending = ArticleUnfurlURLOperation(shortURL: shortURL, web: web)
        enqueueAsTheArticleDoes([running, pending], on: queue)
        #expect(await web.requestSent.wait())

        queue.cancelAllOperations()  // calls each one's cancel(): the article's override, no fatalError
        #expect(outcome(running.result) == "failure(canceled)")
        #expect(outcome(pending.result) == "failure(canceled)")

        // The cancelled request has answered, and the article's completion handler has
        // returned: it saw isCancelled and returned without finishing. Nothing else would
        // finish the operation (the base's cancel() does not), so it stays executing, and the
        // serial queue never starts the pending one.
        #expect(await completionReturned.wait())
        #expect(running.isExecuting && !running.isFinished)
        #expect(!pending.isFinished)
        #expect(queue.operationCount == 2)

        // Unstick the queue, to show what was missing: a cancelled operation may call plain
        // finish() (the article's guard), and then the pending one finishes through start().
        running.finish()
        #expect(await queueLearnsFinished(pending))
        #expect(outcome(pending.result) == "failure(canceled)")
    }

    @Test("cancel() after the unfurl finished replaces its success with failure(canceled), and calls onResult again")
    func cancelAfterFinishOverwrites() async {
        let results = EventLog()
        let unfurl = ArticleUnfurlURLOperation(shortURL: shortURL, web: URLSessionLikeWeb(answersAtOnce: true))
        unfurl.onResult = { results.record(outcome($0)) }
        OperationQueue().addOperation(unfurl)
        #expect(await queueLearnsFinished(unfurl))
        unfurl.cancel()  // for example, a screen that cancels its operations when it goes away
        #expect(outcome(unfurl.result) == "failure(canceled)")
        #expect(results.events == ["success(\(longURL))", "failure(canceled)"])
    }
}

#if os(macOS) || os(Linux)
    @Suite("Chapter 6 — the popular base's cancel() is a run-time trap")
    struct ArticleExampleExitTests {
        @Test("the article's example survives cancelAllOperations(): its cancel() override calls cancel(with:)")
        func articleExampleSurvivesCancelAll() async {
            await #expect(processExitsWith: .success) {
                let queue = OperationQueue()
                queue.isSuspended = true
                let unfurl = ArticleUnfurlURLOperation(shortURL: shortURL, web: URLSessionLikeWeb(answersAtOnce: true))
                queue.addOperation(unfurl)
                queue.cancelAllOperations()
                exit(unfurl.isCancelled ? 0 : 1)
            }
        }

        @Test("a subclass that forgets to override cancel() crashes when its queue is cancelled")
        func subclassWithoutOverrideCrashes() async {
            await #expect(processExitsWith: .failure) {
                final class ForgetsCancel: PopularResultOperation<String, UnfurlError>, @unchecked Sendable {
                    // @unchecked Sendable: no state of its own.
                    override func main() { finish(with: .success("done")) }
                }
                let queue = OperationQueue()
                queue.isSuspended = true
                queue.addOperation(ForgetsCancel())
                queue.cancelAllOperations()  // calls cancel(): fatalError
                exit(0)
            }
        }
    }
#endif

/// A result, printed the short way: `failure(canceled)`.
private func outcome(_ result: Result<URL, ArticleUnfurlURLOperation.Error>?) -> String {
    switch result {
    case nil: "nil"
    case .success(let url)?: "success(\(url))"
    case .failure(.canceled)?: "failure(canceled)"
    case .failure(.missingRedirectURL)?: "failure(missingRedirectURL)"
    case .failure(.underlying(let error))?: "failure(underlying(\(error)))"
    }
}

/// The article's call site: `queue.addOperations(_:waitUntilFinished: false)`, which Swift 6
/// makes unavailable from async code (the whole method is `noasync`), hence this synchronous
/// function.
private func enqueueAsTheArticleDoes(_ operations: [Operation], on queue: OperationQueue) {
    queue.addOperations(operations, waitUntilFinished: false)
}

extension Optional {
    /// The value, leaving nil behind.
    fileprivate mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}
