import AsyncOperations
import Foundation
import ResultOperations
import TestSupport
import Testing

private let shortURL = URL(string: "https://short.example/ops")!
private let brokenURL = URL(string: "https://short.example/broken")!
private let articleURL = URL(string: "https://www.example.com/article")!
private let redirects: [URL: URL?] = [shortURL: articleURL, brokenURL: nil]
private let web = LocalWeb(redirects: redirects, pages: [articleURL: "<title>Article</title>"])

/// A web whose answers take a minute: only a cancellation ends a request in a test.
private func silentWeb(onRequest: @escaping @Sendable (URL) -> Void = { _ in }) -> LocalWeb {
    var slow = web
    slow.latency = .seconds(60)
    slow.onRequest = onRequest
    return slow
}

@Suite("Chapter 6 — AsyncResultOperation and unfurling")
struct ResultOperationTests {
    @Test("unfurling a short URL ends with the final URL")
    func unfurls() async {
        let unfurl = UnfurlURLOperation(shortURL: shortURL, web: web)
        #expect(await OperationQueue().runs(unfurl))
        #expect(unfurl.result?.value == articleURL)
    }

    @Test("a redirect without a target, and a URL that leads nowhere, end with their own failures")
    func unfurlFailures() async {
        let broken = UnfurlURLOperation(shortURL: brokenURL, web: web)
        let gone = UnfurlURLOperation(shortURL: URL(string: "https://short.example/gone")!, web: web)
        #expect(await OperationQueue().runs([broken, gone]))
        #expect(broken.result?.failureDescription == "missingRedirectURL")
        #expect(gone.result?.failureDescription == "underlying(notFound(https://short.example/gone))")
    }

    @Test("16 redirects are followed, as Apple documents for URLSession; a 17th, or a loop, is tooManyRedirects")
    func tooManyRedirects() async {
        /// A chain of `count` redirects, r0 → r1 → … → r`count`, which is a page.
        func chain(_ count: Int) -> (start: URL, web: LocalWeb) {
            let urls = (0...count).map { URL(string: "https://short.example/r\($0)")! }
            let redirects = Dictionary(uniqueKeysWithValues: zip(urls, urls.dropFirst().map { Optional($0) }))
            return (urls[0], LocalWeb(redirects: redirects, pages: [urls[count]: "<title>End</title>"]))
        }
        let loop = URL(string: "https://short.example/loop")!
        let sixteen = chain(16)
        let seventeen = chain(17)
        let operations = [
            UnfurlURLOperation(shortURL: sixteen.start, web: sixteen.web),
            UnfurlURLOperation(shortURL: seventeen.start, web: seventeen.web),
            UnfurlURLOperation(shortURL: loop, web: LocalWeb(redirects: [loop: loop])),
        ]
        #expect(await OperationQueue().runs(operations))
        #expect(operations[0].result?.value == URL(string: "https://short.example/r16")!)
        #expect(operations[1].result?.failureDescription == "underlying(tooManyRedirects(\(seventeen.start)))")
        #expect(operations[2].result?.failureDescription == "underlying(tooManyRedirects(\(loop)))")
    }

    @Test("cancelled before it starts: no request is sent, and the result is .cancelled")
    func cancelledBeforeStart() async {
        let requests = Counter()
        let unfurl = UnfurlURLOperation(shortURL: shortURL, web: silentWeb { _ in requests.increment() })
        unfurl.cancel()
        #expect(await OperationQueue().runs(unfurl))
        #expect(unfurl.result?.failureDescription == "cancelled")
        #expect(requests.value == 0)
    }

    @Test("cancelled while its request is in flight: the request stops, and the result is .cancelled")
    func cancelledDuringWork() async {
        let requestSent = Flag()
        let unfurl = UnfurlURLOperation(shortURL: shortURL, web: silentWeb { _ in requestSent.raise() })
        let queue = OperationQueue()
        queue.addOperation(unfurl)
        #expect(await requestSent.wait())
        unfurl.cancel()
        // The request would answer in a minute: finishing well before proves the cancellation
        // ended it (30 s: generous under ThreadSanitizer on a loaded machine).
        #expect(await queueLearnsFinished(unfurl, within: 30))
        #expect(unfurl.result?.failureDescription == "cancelled")
    }

    @Test("the queue cancels (cancelAllOperations): the running and the pending operation both end with .cancelled")
    func queueCancels() async {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let cancelledByQueue = silentWeb { _ in queue.cancelAllOperations() }
        let running = UnfurlURLOperation(shortURL: shortURL, web: cancelledByQueue)
        let pending = UnfurlURLOperation(shortURL: shortURL, web: cancelledByQueue)
        #expect(await queue.runs([running, pending]))
        #expect(running.result?.failureDescription == "cancelled")
        #expect(pending.result?.failureDescription == "cancelled")
    }

    @Test("cancel(with:) chooses the failure; the first cancellation's error counts")
    func cancelWithError() async {
        struct Offline: Error {}
        let unfurl = UnfurlURLOperation(shortURL: shortURL, web: web)
        unfurl.cancel(with: .underlying(Offline()))
        unfurl.cancel()
        #expect(await OperationQueue().runs(unfurl))
        #expect(unfurl.result?.failureDescription == "underlying(Offline())")
    }

    /// Read from inside, at the moment the queue learns that the operation finished
    /// (`FinishWatch`): fails if the result is recorded only after "finished" was announced.
    @Test(
        "the result is there when the queue learns that the operation finished, on every path",
        arguments: WatchedWork.Path.allCases)
    func resultBeforeFinished(path: WatchedWork.Path) async {
        let reference = WeakReference()
        do {
            let operation = WatchedWork(path)
            reference.object = operation
            let queue = OperationQueue()
            if path == .cancelledBeforeItStarts { operation.cancel() }
            queue.addOperation(operation)
            if path == .cancelledWhileItRuns {
                #expect(await operation.running.wait())
                queue.cancelAllOperations()
            }
            #expect(await queueLearnsFinished(operation))
            #expect(operation.watch.problem == nil, "\(path)")
            #expect(operation.watch.resultWhenFinished.map(describe) == path.expected)
            #expect(operation.running.isRaised == (path != .cancelledBeforeItStarts))
        }
        #expect(await reference.isFreed(), "an operation outlived the test: a cycle?")
    }

    /// A race test for the other half of `ResultProducing`'s promise: the result is nil until
    /// `isFinished` is true. Finishing records the result just before "finished" is stored. A
    /// reader thread reads `result`, then `isFinished`, of one operation again and again, and
    /// the test finishes that operation meanwhile; then the next. It goes on until the reader
    /// finds a result beside `isFinished == false`, or it watched 2,000 finishes (the old code
    /// showed one in every 50 to 1,000), or 5 s have passed.
    @Test("result is nil until isFinished is true, also while the operation is finishing (a race test)")
    func resultNilUntilFinished() async {
        let found = Locked<(contradictions: Int, watched: Int)>((0, 0))
        let returned = await blockingCall(within: 60) {
            let outcome = Self.watchFinishes(until: 2_000, orFor: 5 * boundStretch)
            found.withLock { $0 = outcome }
        }
        #expect(returned, "the finishes did not end within 60 s")
        let (contradictions, watched) = found.withLock { $0 }
        #expect(contradictions == 0, "a result beside isFinished == false, \(contradictions) times in \(watched)")
    }

    /// Finishes batches of operations started by hand, each while a reader thread watches it,
    /// until `enough` finishes were watched, the reader found a contradiction, or `seconds`
    /// passed. Blocks: call it on a thread of its own.
    ///
    /// The reader says when it begins to watch an operation, and the test finishes it only
    /// then: waiting blocked, so that the test takes no processor from the reader on a busy
    /// machine. The reader yields its processor now and then while it watches, for the same
    /// reason.
    private static func watchFinishes(until enough: Int, orFor seconds: Double) -> (contradictions: Int, watched: Int) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        let contradictions = Counter()
        var watched = 0
        while watched < enough && contradictions.value == 0 && Date() < deadline {
            let operations = (0..<200).map { _ in FinishedByTheTest() }
            for operation in operations { operation.start() }  // by hand, outside a queue: runs until finished
            let watching = DispatchSemaphore(value: 0)  // signalled as the reader begins to watch the next one
            let readerDone = DispatchSemaphore(value: 0)
            Thread {
                for operation in operations {
                    watching.signal()
                    var looks = 0
                    while true {
                        let result = operation.result  // first the result, then the state
                        let finished = operation.isFinished
                        if result != nil && !finished { contradictions.increment() }
                        if finished { break }
                        looks += 1
                        if looks % 1_000 == 0 { sched_yield() }
                    }
                }
                readerDone.signal()
            }.start()
            for operation in operations {
                guard watching.wait(timeout: .now() + 10) == .success else { break }
                operation.finish(with: .success("done"))
                watched += 1
            }
            for operation in operations { operation.finish(with: .success("done")) }  // any left (ignored if finished)
            _ = readerDone.wait(timeout: .now() + 10)
        }
        return (contradictions.value, watched)
    }

    @Test("a second finish(with:) is ignored and returns false; the first result stays")
    func finishTwice() async {
        let operation = FinishingTwice(first: "first", second: "second")
        #expect(await OperationQueue().runs(operation))
        #expect(operation.accepted == [true, false])
        #expect(operation.result?.value == "first")
    }

    @Test("two finish(with:) calls racing from two threads: exactly one wins, 200 times over")
    func finishRaces() async {
        let operations = (0..<200).map { _ in RacingFinishes() }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 8
        #expect(await queue.runs(operations))
        for operation in operations {
            // The losing call may return after the operation finished: wait for it too.
            #expect(await operation.bothCallsReturned.waitForTarget())
            #expect(operation.accepted.filter { $0 }.count == 1, "exactly one finish(with:) must win")
            #expect(operation.result?.value == operation.winner)
        }
    }

    @Test("a cancel() that lands as start() begins still ends with a result")
    func cancelRacingStart() {
        // Found by the stress test: start() used to look at isCancelled, then the base looked
        // again, and a cancel() in between made the base finish without main() and without a
        // result. Now start() looks once, under its lock; this cancel lands just before.
        // Started by hand, outside a queue, so that no one else reads isReady.
        let operation = CancelledWhileStarting()
        operation.start()
        #expect(operation.isFinished)
        #expect(operation.result?.failureDescription == "cancelled")
    }

    @Test("finish(with:) before start() is ignored: the operation still runs and decides its result")
    func finishBeforeStart() async {
        let unfurl = UnfurlURLOperation(shortURL: shortURL, web: web)
        #expect(!unfurl.finish(with: .failure(.missingRedirectURL)))
        #expect(await OperationQueue().runs(unfurl))
        #expect(unfurl.result?.value == articleURL)
    }

    #if os(macOS) || os(Linux)
        @Test("AsyncResultOperation: cancelAllOperations() on a pending operation ends it with .cancelled, no crash")
        func fixedSurvivesCancelAll() async {
            let queue = OperationQueue()
            queue.isSuspended = true
            let unfurl = UnfurlURLOperation(shortURL: shortURL, web: web)
            queue.addOperation(unfurl)
            queue.cancelAllOperations()
            queue.isSuspended = false
            #expect(await queueLearnsFinished(unfurl))
            #expect(unfurl.result?.failureDescription == "cancelled")
        }

        @Test("plain finish() traps: an AsyncResultOperation must finish with a result", .exitTest)
        func plainFinishTraps() async {
            await #expect(processExitsWith: .failure) {
                final class Forgetful: AsyncResultOperation<String, UnfurlError>, @unchecked Sendable {
                    // @unchecked Sendable: no state of its own.
                    override func main() { finish() }
                }
                let operation = Forgetful()
                operation.start()
            }
        }
    #endif
}

/// Cancels itself right after its first `isReady` read, which `start()` makes as it begins:
/// a `cancel()` from another thread that lands while `start()` runs, made certain.
private final class CancelledWhileStarting: AsyncResultOperation<String, UnfurlError>, @unchecked Sendable {
    // @unchecked Sendable: `firstRead` is a Locked.
    private let firstRead = Locked(true)

    override var isReady: Bool {
        let ready = super.isReady
        let isFirstRead = firstRead.withLock { first in
            defer { first = false }
            return first
        }
        if isFirstRead { cancel() }
        return ready
    }

    override func main() { finish(with: .success("done")) }
}

/// An operation watched by a `FinishWatch`, which ends along one of the paths to a result.
final class WatchedWork: AsyncResultOperation<String, UnfurlError>, @unchecked Sendable {
    // @unchecked Sendable: a constant, a thread-safe Flag and FinishWatch, on a thread-safe base.
    enum Path: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case succeeds, fails
        case cancelledBeforeItStarts = "cancelled before it starts"
        case cancelledWhileItRuns = "cancelled while it runs (cancelAllOperations)"

        var testDescription: String { rawValue }

        /// The result it must end with, as `describe` prints it.
        var expected: String {
            switch self {
            case .succeeds: "success(done)"
            case .fails: "failure(missingRedirectURL)"
            case .cancelledBeforeItStarts, .cancelledWhileItRuns: "failure(cancelled)"
            }
        }
    }

    let watch = FinishWatch<String, UnfurlError>()
    /// Raised once `main()` runs.
    let running = Flag()
    private let path: Path

    init(_ path: Path) { self.path = path }

    override func main() {
        running.raise()
        switch path {
        case .succeeds: DispatchQueue.global().async { self.finish(with: .success("done")) }
        case .fails: DispatchQueue.global().async { self.finish(with: .failure(.missingRedirectURL)) }
        case .cancelledBeforeItStarts: finish(with: .success("main() ran"))  // must not happen: the test checks
        case .cancelledWhileItRuns: onCancel { self.finish(with: .failure(.cancelled)) }  // work that never answers
        }
    }

    override var isFinished: Bool { watch.isFinished(super.isFinished, of: self) }

    #if !os(Linux)
        // NSObject's, which a subclass can override on a Mac (not on Linux, where Foundation
        // reads isFinished inside it): the watch reads isFinished just before the queue is told.
        // kvo pairs checked by hand: this override passes on the base's own didChangeValue
        // calls, each after its willChangeValue, and adds none.
        override func didChangeValue(forKey key: String) {
            watch.didChangeValue(forKey: key, of: self)
            super.didChangeValue(forKey: key)
        }
    #endif
}

/// A result as the chapter prints it: "success(…)" or "failure(…)".
private func describe<Success, Failure>(_ result: Result<Success, Failure>) -> String {
    switch result {
    case .success(let value): "success(\(value))"
    case .failure(let error): "failure(\(error))"
    }
}

/// Runs until the test calls `finish(with:)`.
private final class FinishedByTheTest: AsyncResultOperation<String, UnfurlError>, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func main() {}
}

/// Finishes with `first`, then tries `second`, and keeps what each call returned.
private final class FinishingTwice: AsyncResultOperation<String, UnfurlError>, @unchecked Sendable {
    // @unchecked Sendable: `calls` is a Locked; the strings are constants.
    private let first: String
    private let second: String
    private let calls = Locked<[Bool]>([])

    init(first: String, second: String) {
        self.first = first
        self.second = second
    }

    var accepted: [Bool] { calls.withLock { $0 } }

    override func main() {
        for value in [first, second] {
            let accepted = finish(with: .success(value))
            calls.withLock { $0.append(accepted) }
        }
    }
}

/// Two threads call finish(with:) at the same moment, each with its own value.
private final class RacingFinishes: AsyncResultOperation<String, UnfurlError>, @unchecked Sendable {
    // @unchecked Sendable: `calls` is a Locked, the counter is thread-safe.
    private let calls = Locked<[(value: String, accepted: Bool)]>([])
    let bothCallsReturned = Counter(target: 2)

    var accepted: [Bool] { calls.withLock { $0.map(\.accepted) } }
    var winner: String? { calls.withLock { $0.first { $0.accepted }?.value } }

    override func main() {
        for value in ["a", "b"] {
            Thread {
                let accepted = self.finish(with: .success(value))
                self.calls.withLock { $0.append((value, accepted)) }
                self.bothCallsReturned.increment()
            }.start()
        }
    }
}

extension Result {
    /// The success value, or nil.
    var value: Success? { try? get() }

    /// The failure as the chapters print it, or nil.
    var failureDescription: String? {
        if case .failure(let error) = self { return "\(error)" }
        return nil
    }
}
