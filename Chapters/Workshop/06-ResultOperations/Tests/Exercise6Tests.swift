import AsyncOperations
import Dispatch
import Exercise6
import Foundation
import TestSupport
import Testing

// kvo pairs checked by hand: the calls named here are in messages and comments, and the
// watching subclass passes each of the learner's own calls on unchanged.

// Every moment where another thread can act on the operation has a test that puts a cancel
// (or an answer) exactly there, from a hook: before it starts, just after start()'s look at
// isCancelled, while start() starts it, as main() begins, while the request is sent, while it
// runs, between the answer and the finish, after the finish. Two more send an answer and a
// cancel, or two answers, from two threads at once: nothing but the learner's code orders
// them, so that ThreadSanitizer (the check's second run) sees state left unlocked.
// Reference/Rules.md lists which test checks each rule of the stub.

@Suite("Exercise 6 — a result on every path")
struct Exercise6Tests {
    @Test("a request that answers: its answer is the result, there when the queue learns the operation finished")
    func answered() async {
        let operation = WatchedRequest { done in DispatchQueue.global().async { done(.success("answer")) } }
        guard await OperationQueue().runs(operation, within: 5) else {
            operation.recordNotFinished(
                "the request answered, and the operation never finished: the answer ends it (hint: \"Decide when it finishes\")"
            )
            return
        }
        operation.expectResult(.success("answer"), "the request answered .success(\"answer\"), nobody cancelled")
    }

    @Test("a request that fails: its failure is the result")
    func failed() async {
        let operation = WatchedRequest { done in DispatchQueue.global().async { done(.failure(.failed("timeout"))) } }
        guard await OperationQueue().runs(operation, within: 5) else {
            operation.recordNotFinished(
                "the request answered, and the operation never finished: the answer ends it (hint: \"Decide when it finishes\")"
            )
            return
        }
        operation.expectResult(.failure(.failed("timeout")), "the request answered .failure(.failed(\"timeout\"))")
    }

    @Test("cancelled before it starts: the request is never sent, and the result is .cancelled")
    func cancelledBeforeStart() async {
        let sent = Flag()
        let operation = WatchedRequest { _ in sent.raise() }
        guard await blockingCall(within: 5, { operation.cancel() }) else {
            Issue.record(
                "cancel(), called before the operation started, never returned (hint: \"Never under the lock\")")
            return
        }
        guard await OperationQueue().runs(operation, within: 5) else {
            operation.recordNotFinished(
                "cancelled before it started, the operation never finished once its queue started it (hint: \"Decide when it finishes\")"
            )
            return
        }
        #expect(
            !sent.isRaised,
            "cancelled before it started, the operation sent its request anyway (hint: \"Decide when it finishes\")")
        operation.expectResult(.failure(.cancelled), "cancelled before it started, the operation never ran main()")
    }

    @Test("a cancel that lands just after start() looked at isCancelled: the result agrees with isCancelled")
    func cancelJustAfterTheLook() async {
        let operation = WatchedRequest { done in done(.success("answer")) }
        operation.cancelAtFirstLook.raise()
        // By hand, on a thread of its own: the first time that thread reads isCancelled, the
        // operation is cancelled right after the read.
        guard await blockingCall(threadMark: WatchedRequest.startingThread, within: 5, { operation.start() }) else {
            Issue.record(
                "start() never returned: something on its thread waited for a lock (hint: \"Never under the lock\")")
            return
        }
        guard await queueLearnsFinished(operation, within: 5) else {
            operation.recordNotFinished(
                """
                start() returned, cancelled just after a look at isCancelled on its thread, and the operation never \
                finished (hint: "Cancelled while it runs")
                """)
            return
        }
        operation.expectResult(
            operation.isCancelled ? .failure(.cancelled) : .success("answer"),
            """
            a cancel landed just after a look at isCancelled on start()'s thread (a look of your own, before the \
            base's, misses it), and the operation ended \(operation.isCancelled ? "cancelled" : "not cancelled")
            """)
    }

    @Test("a cancel that lands after start() decided to run it, before it is executing: it ends .cancelled")
    func cancelWhileStarting() async {
        // The base's start() claims the run, then reads isReady (on its own thread), then
        // becomes executing and calls main(). The watched operation cancels itself from that
        // read: cancel() runs while isExecuting is still false. A cancel() override that
        // finishes only `if isExecuting` does nothing then, and main() starts a request that
        // never answers.
        let operation = WatchedRequest { _ in }  // never calls back
        operation.cancelWhenStartReadsReady.raise()
        guard await blockingCall(threadMark: WatchedRequest.startingThread, within: 5, { operation.start() }) else {
            Issue.record(
                """
                start() never returned after a cancel that landed while it was starting the operation: something on \
                its thread waited for a lock (hint: "Never under the lock")
                """)
            return
        }
        guard operation.cancelledWhileStarting else {
            Issue.record(
                """
                the test's cancel never landed: start() never read isReady on its thread. Does your class override \
                start() without calling super.start()? (hint: "Cancelled while it runs")
                """)
            return
        }
        guard await queueLearnsFinished(operation, within: 5) else {
            operation.recordNotFinished(
                """
                cancelled while start() was starting it (not executing yet), the operation never finished: its \
                request never answers. A cancel() override that looks at isExecuting misses that moment; a handler \
                registered with onCancel(_:) in main() runs at once if the cancel came first (hint: "Cancelled while \
                it runs")
                """)
            return
        }
        operation.expectResult(.failure(.cancelled), "cancelled while start() was starting it")
    }

    @Test("a cancel as main() begins, before the request is sent: it ends .cancelled")
    func cancelAsMainBegins() async {
        let operation = WatchedRequest { _ in }  // never calls back
        operation.cancelAsMainBegins.raise()
        OperationQueue().addOperation(operation)
        guard await queueLearnsFinished(operation, within: 5) else {
            operation.recordNotFinished(
                """
                cancelled as its main() began, the operation never finished: its request never answers. A handler \
                registered with onCancel(_:) runs at once if the cancel came first (hint: "Cancelled while it runs")
                """)
            return
        }
        operation.expectResult(.failure(.cancelled), "cancelled as main() began")
    }

    @Test("a cancel while the request is being sent, before main() returns: it ends .cancelled")
    func cancelWhileTheRequestIsSent() async {
        let cancelling = WeakReference<WatchedRequest>()
        let operation = WatchedRequest { _ in cancelling.object?.cancel() }  // cancels, and never calls back
        cancelling.object = operation
        OperationQueue().addOperation(operation)
        guard await queueLearnsFinished(operation, within: 5) else {
            operation.recordNotFinished(
                """
                cancelled while its request was being sent (inside main(), before it returned), the operation never \
                finished: its request never answers. A handler registered with onCancel(_:) runs at once if the \
                cancel came first (hint: "Cancelled while it runs")
                """)
            return
        }
        operation.expectResult(.failure(.cancelled), "cancelled while its request was being sent")
    }

    @Test("cancelAllOperations() while the request runs (it never answers): it ends .cancelled")
    func queueCancelsWhileRunning() async {
        let sent = Flag()
        let queue = OperationQueue()
        let operation = WatchedRequest { _ in sent.raise() }  // never calls back
        queue.addOperation(operation)
        guard await sent.wait(seconds: 5) else {
            Issue.record(
                "the queue started the operation, and its request was never sent (hint: \"Cancelled while it runs\")")
            return
        }
        // On a thread of its own: a cancel that deadlocks fails this test instead of hanging it.
        guard await blockingCall(within: 5, { queue.cancelAllOperations() }) else {
            Issue.record(
                """
                cancelAllOperations(), while the request ran, never returned: the cancel waited for a lock (hint: \
                "Never under the lock")
                """)
            return
        }
        guard await queueLearnsFinished(operation, within: 5) else {
            operation.recordNotFinished(
                """
                cancelled while its request ran, the operation never finished: a cancelled request never answers, so \
                the cancel must end it (hint: "Cancelled while it runs")
                """)
            return
        }
        operation.expectResult(.failure(.cancelled), "cancelled while its request ran")
    }

    @Test("a cancel between the answer and the finish: the result agrees with isCancelled")
    func cancelBetweenTheAnswerAndTheFinish() async {
        // The request answers; the operation is cancelled from its first call of finish() —
        // after the answer was handed over, before the base finishes it.
        let operation = WatchedRequest { done in DispatchQueue.global().async { done(.success("answer")) } }
        operation.atFirstFinish { $0.cancel() }
        guard await OperationQueue().runs(operation, within: 5) else {
            operation.recordNotFinished(
                """
                the request answered, a cancel landed just before the operation finished, and it never finished \
                (hint: "Decide when it finishes")
                """)
            return
        }
        operation.expectResult(
            operation.isCancelled ? .failure(.cancelled) : .success("answer"),
            """
            the request answered .success("answer"), then a cancel landed before the finish, and the operation \
            \(operation.isCancelled ? "was" : "was not") cancelled
            """)
    }

    @Test("while it finishes, before it has finished, the result is still nil")
    func noResultBeforeItFinishes() async {
        // Read at the first call of finish(), once the request has answered; on a Mac also at
        // willChangeValue(forKey: "isFinished"), the last moment before "finished" is stored.
        let operation = WatchedRequest { done in DispatchQueue.global().async { done(.success("answer")) } }
        let early = Locked<(read: Bool, result: Result<String, RequestError>?)>((false, nil))
        operation.atFirstFinish { operation in
            let result = operation.result
            early.withLock { $0 = (true, result) }
        }
        guard await OperationQueue().runs(operation, within: 5) else {
            operation.recordNotFinished(
                "the request answered, and the operation never finished (hint: \"Decide when it finishes\")")
            return
        }
        let atFinish = early.withLock { $0 }
        #expect(
            atFinish.result == nil,
            """
            when finish() was called (the operation was not finished yet), result was already \
            \(describe(atFinish.result)): result is nil until the operation has finished, so that \
            nobody acts on it before (hint: "Decide when it finishes")
            """)
        #if !os(Linux)
            let atWill = operation.resultAtWillChangeFinished
            #expect(
                atWill == nil,
                """
                at willChangeValue(forKey: "isFinished"), before "finished" was stored, result was already \
                \(describe(atWill)): result is nil until the operation has finished (hint: "Decide when it \
                finishes")
                """)
        #endif
    }

    @Test("a second answer that comes before the operation has finished changes nothing: the first one stays")
    func secondAnswerBeforeTheFinish() async {
        let answer = Locked<(@Sendable (Result<String, RequestError>) -> Void)?>(nil)
        let operation = WatchedRequest { done in
            answer.withLock { $0 = done }
            DispatchQueue.global().async { done(.success("first")) }
        }
        // A second answer, from inside the first one's call of finish(), before it finishes.
        operation.atFirstFinish { _ in answer.withLock { $0 }?(.success("second")) }
        guard await OperationQueue().runs(operation, within: 5) else {
            operation.recordNotFinished(
                "the request answered twice, and the operation never finished (hint: \"One result\")")
            return
        }
        operation.expectResult(
            .success("first"), "the request answered .success(\"first\"), then .success(\"second\") before the finish")
    }

    @Test("an answer that comes after the cancel ended the operation changes nothing: the result stays .cancelled")
    func lateAnswerIgnored() async {
        let sent = Flag()
        let answer = Locked<(@Sendable (Result<String, RequestError>) -> Void)?>(nil)
        let operation = WatchedRequest { done in
            answer.withLock { $0 = done }
            sent.raise()
        }
        OperationQueue().addOperation(operation)
        guard await sent.wait(seconds: 5), await blockingCall(within: 5, { operation.cancel() }),
            await queueLearnsFinished(operation, within: 5)
        else {
            Issue.record(
                "cancelled while its request ran, the operation never finished (hint: \"Cancelled while it runs\")")
            return
        }
        guard await blockingCall(within: 5, { answer.withLock { $0 }?(.failure(.failed("the server saw the cancel"))) })
        else {
            Issue.record(
                "an answer after the operation had finished never returned: it waited for a lock (hint: \"Never under the lock\")"
            )
            return
        }
        #expect(
            operation.result == .failure(.cancelled),
            """
            the operation finished .cancelled, then its request answered, and the result became \
            \(describe(operation.result)): once finished, the result never changes (hint: "One result")
            """)
    }

    @Test("a cancel after the operation has finished changes nothing: not cancelled, and its answer stays")
    func cancelAfterItFinished() async {
        let operation = WatchedRequest { done in done(.success("answer")) }
        guard await OperationQueue().runs(operation, within: 5) else {
            operation.recordNotFinished(
                "the request answered, and the operation never finished (hint: \"Decide when it finishes\")")
            return
        }
        // Without its answer already, there is nothing to keep: `answered` says why.
        guard operation.result == .success("answer") else { return }
        guard await blockingCall(within: 5, { operation.cancel() }) else {
            Issue.record(
                "cancel(), called once the operation had finished, never returned (hint: \"Never under the lock\")")
            return
        }
        let result = operation.result
        #expect(
            result == .success("answer") && !operation.isCancelled,
            """
            the operation finished with .success("answer"); a cancel() after that left it \
            \(operation.isCancelled ? "cancelled" : "not cancelled"), with the result \(describe(result)): \
            once finished, the result never changes, and the base ignores the cancel (hint: "One result")
            """)
    }

    /// A new operation, queued, whose request has been sent, with the request's callback; nil
    /// if the request was not sent within 5 s.
    ///
    /// The two tests that set two threads off together do it `raceRounds` times under
    /// ThreadSanitizer (judging the last round): the detector reports a race only in a round in
    /// which nothing happened to order the two threads' accesses.
    private static func sentRequest() async -> (WatchedRequest, @Sendable (Result<String, RequestError>) -> Void)? {
        let answer = Locked<(@Sendable (Result<String, RequestError>) -> Void)?>(nil)
        let sent = Flag()
        let operation = WatchedRequest { done in
            answer.withLock { $0 = done }
            sent.raise()
        }
        OperationQueue().addOperation(operation)
        guard await sent.wait(seconds: 5), let done = answer.withLock({ $0 }) else { return nil }
        return (operation, done)
    }

    @Test("two answers from two threads at once: one of them is the result, and stays")
    func twoAnswersAtOnce() async {
        for _ in 1..<raceRounds {
            guard let (_, done) = await Self.sentRequest() else { break }
            _ = await atOnce(within: 5, [{ done(.success("one")) }, { done(.success("two")) }])
        }
        guard let (operation, done) = await Self.sentRequest() else {
            Issue.record(
                "the queue started the operation, and its request was never sent (hint: \"Cancelled while it runs\")")
            return
        }
        guard await atOnce(within: 5, [{ done(.success("one")) }, { done(.success("two")) }]) else {
            Issue.record(
                "two answers from two threads at once: one of them never returned, waiting for a lock (hint: \"Never under the lock\")"
            )
            return
        }
        guard await queueLearnsFinished(operation, within: 5) else {
            operation.recordNotFinished(
                "the request answered twice, and the operation never finished (hint: \"One result\")")
            return
        }
        let result = operation.result
        #expect(
            result == .success("one") || result == .success("two"),
            """
            the request answered .success("one") and .success("two") from two threads at once, and the result \
            was \(describe(result)) (hint: "\(result == nil ? "Decide when it finishes" : "One result")")
            """)
        operation.expectResultWhenFinished(result, "two answers came from two threads at once")
    }

    @Test("an answer and a cancel from two threads at once: the result agrees with isCancelled")
    func answerAndCancelAtOnce() async {
        for _ in 1..<raceRounds {
            guard let (operation, done) = await Self.sentRequest() else { break }
            _ = await atOnce(within: 5, [{ done(.success("answer")) }, { operation.cancel() }])
        }
        guard let (operation, done) = await Self.sentRequest() else {
            Issue.record(
                "the queue started the operation, and its request was never sent (hint: \"Cancelled while it runs\")")
            return
        }
        guard await atOnce(within: 5, [{ done(.success("answer")) }, { operation.cancel() }]) else {
            Issue.record(
                "an answer and a cancel from two threads at once: one of them never returned, waiting for a lock (hint: \"Never under the lock\")"
            )
            return
        }
        guard await queueLearnsFinished(operation, within: 5) else {
            operation.recordNotFinished(
                "the request answered while the operation was cancelled, and it never finished (hint: \"Decide when it finishes\")"
            )
            return
        }
        operation.expectResult(
            operation.isCancelled ? .failure(.cancelled) : .success("answer"),
            """
            the request answered .success("answer") while another thread cancelled the operation, and it \
            \(operation.isCancelled ? "was" : "was not") cancelled
            """)
    }

    @Test("main() returns while the request runs: the answer, or the cancel, ends the operation")
    func mainReturnsAtOnce() async {
        let answer = Locked<(@Sendable (Result<String, RequestError>) -> Void)?>(nil)
        let operation = WatchedRequest { done in answer.withLock { $0 = done } }
        OperationQueue().addOperation(operation)
        // The request is not answered until main() has returned: it has nothing to wait for.
        let returned = await operation.mainReturned.wait(seconds: 3)
        guard await blockingCall(within: 5, { answer.withLock { $0 }?(.success("answer")) }) else {
            Issue.record("the request's answer never returned: it waited for a lock (hint: \"Never under the lock\")")
            return
        }
        guard returned else {
            Issue.record(
                """
                main() had not returned 3 s after it began, while the request had not answered: it waits for the \
                answer (or for a time limit), holding one of the queue's threads meanwhile. Send the request, \
                register the cancel's ending, and return (hint: "No time limit")
                """)
            return
        }
        guard await queueLearnsFinished(operation, within: 5) else {
            operation.recordNotFinished(
                "the request answered, and the operation never finished (hint: \"Decide when it finishes\")")
            return
        }
        operation.expectResult(
            .success("answer"), "the request answered .success(\"answer\") once main() had returned; nobody cancelled")
    }

    @Test("a request that answers late, and is never cancelled, ends with its answer: only a cancel makes .cancelled")
    func lateAnswerIsNoCancel() async {
        let answer = Locked<(@Sendable (Result<String, RequestError>) -> Void)?>(nil)
        let sent = Flag()
        let operation = WatchedRequest { done in
            answer.withLock { $0 = done }
            sent.raise()
        }
        OperationQueue().addOperation(operation)
        guard await sent.wait(seconds: 5) else {
            Issue.record(
                "the queue started the operation, and its request was never sent (hint: \"Cancelled while it runs\")")
            return
        }
        // A slow server: the answer comes 1 s after the request, and nobody cancels.
        let answered = Flag()
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
            answer.withLock { $0 }?(.success("late answer"))
            answered.raise()
        }
        guard await answered.wait(seconds: 10), await queueLearnsFinished(operation, within: 5) else {
            Issue.record("the request answered after 1 s, and the operation never finished (hint: \"No time limit\")")
            return
        }
        let result = operation.result
        #expect(
            result == .success("late answer") && !operation.isCancelled,
            """
            a request that answered after 1 s, never cancelled, ended with \(describe(result)): only a \
            cancel ends it with .cancelled (hint: "\(result == nil ? "Decide when it finishes" : "No time limit")")
            """)
    }

    @Test(
        "once it has finished and nothing else holds it, the operation is freed at once: nothing is left to run for it")
    func freedAtOnce() async {
        // Started by hand on a thread of the test's, which holds it only weakly: once start()
        // has returned and the test lets go, nothing but what the operation left behind holds it.
        weak var freed: RequestOperation?
        let starting = WeakReference<RequestOperation>()
        var finished = false
        do {
            let operation = RequestOperation { done in done(.success("answer")) }
            freed = operation
            starting.object = operation
            guard await blockingCall(within: 5, { startReleasingWhatItAutoreleases(starting) }) else {
                Issue.record(
                    "start(), by hand, of an operation whose request answers at once, never returned (hint: \"No time limit\")"
                )
                return
            }
            finished = operation.isFinished
        }
        guard finished else {
            Issue.record(
                """
                started by hand, with a request that answered at once, the operation had not finished when start() \
                returned (hint: "Decide when it finishes")
                """)
            return
        }
        guard freed != nil else { return }
        // Something still holds it: was it let go later, or never?
        let began = ContinuousClock.now
        let deadline = began + .seconds(5 * boundStretch)
        while freed != nil && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        let later = freed == nil ? "it was freed \(began.duration(to: .now)) later" : "it was still there 5 s later"
        Issue.record(
            """
            the operation had finished (started by hand; its request answered at once) and nothing of the test held it, \
            yet it was not freed: \(later). Something it left behind holds it — a closure scheduled for later, \
            such as a time limit (hint: "No time limit")
            """)
    }

    @Test("an operation is freed once its queue has finished it, or when it is dropped without running")
    func freedWhenDone() async {
        weak var answered: RequestOperation?
        weak var dropped: RequestOperation?
        do {
            let operation = RequestOperation { done in DispatchQueue.global().async { done(.success("answer")) } }
            answered = operation
            #expect(
                await OperationQueue().runs(operation, within: 5),
                "the request answered, and the operation never finished (hint: \"Decide when it finishes\")")
            let neverRun = RequestOperation { _ in }
            dropped = neverRun
        }
        let deadline = ContinuousClock.now + .seconds(5 * boundStretch)  // the queue lets go of it on its own thread
        while answered != nil && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        #expect(
            answered == nil,
            """
            an operation that its queue had finished was still there 5 s later: something it holds holds it (hint: \
            "Who holds whom")
            """)
        #expect(
            dropped == nil,
            """
            an operation that was created and dropped without ever running was not freed: something it holds holds \
            it — a handler registered in init that captures self strongly? (hint: "Who holds whom")
            """)
    }
}

/// A result as the learner writes it: `.success("answer")`, `.failure(.cancelled)`, `nil`.
private func describe(_ result: Result<String, RequestError>?) -> String {
    switch result {
    case nil: "nil"
    case .success(let answer)?: ".success(\"\(answer)\")"
    case .failure(.cancelled)?: ".failure(.cancelled)"
    case .failure(.failed(let reason))?: ".failure(.failed(\"\(reason)\"))"
    }
}

/// Starts the operation, if it is still there, inside an autorelease pool on a Mac: whatever
/// Foundation autoreleased while it ran is let go before start() is said to have returned.
private func startReleasingWhatItAutoreleases(_ operation: WeakReference<RequestOperation>) {
    #if canImport(ObjectiveC)
        autoreleasepool { operation.object?.start() }
    #else
        operation.object?.start()
    #endif
}

/// A weak reference that any thread may read and write.
private final class WeakReference<Object: AnyObject>: Sendable {
    private let stored = Locked<WeakBox>(WeakBox())

    private struct WeakBox: @unchecked Sendable {
        // @unchecked Sendable: only read and written under `stored`'s lock.
        weak var object: Object?
    }

    var object: Object? {
        get { stored.withLock { $0.object } }
        set { stored.withLock { $0.object = newValue } }
    }
}

/// The exercise's operation, watched from a subclass: the result when it was first seen
/// finished (read from another thread, as a dependent reads it), and hooks that put a cancel,
/// or an answer, exactly where a test wants it.
private final class WatchedRequest: RequestOperation, @unchecked Sendable {
    // @unchecked Sendable: Locked state and thread-safe flags, on the learner's superclass.
    static let startingThread = "exercise6.start"

    /// What the operation's result was when it was first seen finished.
    private enum Seen: Sendable {
        case notYet, reading
        case read(Result<String, RequestError>?)
        /// Reading it from another thread did not return within its bound.
        case blocked
    }

    private let seen = Locked<Seen>(.notYet)
    private let firstFinish = Locked<(@Sendable (WatchedRequest) -> Void)?>(nil)
    private let atWillChangeFinished = Locked<Result<String, RequestError>?>(nil)
    /// Cancel right after the first read of isCancelled on the starting thread.
    let cancelAtFirstLook = Flag()
    private let looked = Flag()
    /// Cancel at the first read of isReady on the starting thread: start() has claimed the
    /// run and is not executing yet.
    let cancelWhenStartReadsReady = Flag()
    private let readReady = Flag()
    var cancelledWhileStarting: Bool { readReady.isRaised }
    /// Cancel as main() begins, before the learner's main() runs.
    let cancelAsMainBegins = Flag()
    /// Raised once the learner's main() has returned.
    let mainReturned = Flag()

    /// Runs `hook` at the first call of finish(), before the base's finish().
    func atFirstFinish(_ hook: @escaping @Sendable (WatchedRequest) -> Void) {
        firstFinish.withLock { $0 = hook }
    }

    override func finish() {
        let hook = firstFinish.withLock { hook in
            defer { hook = nil }
            return hook
        }
        hook?(self)
        super.finish()
    }

    override func main() {
        if cancelAsMainBegins.isRaised { cancel() }
        super.main()
        mainReturned.raise()
    }

    // The queue learns "finished" by reading this getter: Linux's Foundation from inside
    // didChangeValue(forKey: "isFinished"), a Mac's observers once it is announced. At its
    // first true, the result is read from another thread, as a dependent would read it: a
    // result that is not there yet, or a lock that the finishing thread still holds, shows.
    override var isFinished: Bool {
        let finished = super.isFinished
        guard finished else { return finished }
        let first = seen.withLock { seen in
            guard case .notYet = seen else { return false }
            seen = .reading
            return true
        }
        if first {
            let result = valueFromAnotherThread(within: 2) { self.result }
            seen.withLock { $0 = result.map { .read($0) } ?? .blocked }
        }
        return finished
    }

    override var isReady: Bool {
        if cancelWhenStartReadsReady.isRaised, ThreadMark.isSet(Self.startingThread), !readReady.isRaised {
            readReady.raise()
            cancel()  // start() decided to run it; it is not executing yet
        }
        return super.isReady
    }

    override var isCancelled: Bool {
        let cancelled = super.isCancelled
        if cancelAtFirstLook.isRaised, ThreadMark.isSet(Self.startingThread), !looked.isRaised {
            looked.raise()
            cancel()  // lands right after this look, which said "not cancelled"
        }
        return cancelled
    }

    #if !os(Linux)
        // A Mac's queue learns "finished" from these announcements (key-value observing); Linux's
        // Foundation cannot be watched here. Both pass the learner's calls on unchanged.
        override func willChangeValue(forKey key: String) {
            if key == "isFinished" {
                let result = self.result
                atWillChangeFinished.withLock { $0 = result }
            }
            super.willChangeValue(forKey: key)
        }

        override func didChangeValue(forKey key: String) {
            if key == "isFinished" { _ = isFinished }  // reads the result at this moment
            super.didChangeValue(forKey: key)
        }
    #endif

    /// The result at willChangeValue(forKey: "isFinished"), on a Mac.
    var resultAtWillChangeFinished: Result<String, RequestError>? { atWillChangeFinished.withLock { $0 } }

    /// Records `message`, which says that the operation never finished — unless its queue was
    /// learning that it had, and a read of its result from another thread waited meanwhile:
    /// then that is what was seen.
    func recordNotFinished(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let seen = self.seen.withLock { $0 }
        switch seen {
        case .reading, .blocked:
            Issue.record(
                """
                when the queue learned that the operation finished, reading its result from another thread waited 2 s \
                without an answer — the finishing thread held the outcome's lock (hint: "Never under the lock")
                """, sourceLocation: sourceLocation)
        case .notYet, .read:
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        }
    }

    /// Records an issue unless the result is `expected`, now and when the queue learned that
    /// the operation finished. `what` says what happened to the operation.
    func expectResult(
        _ expected: Result<String, RequestError>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let result = self.result
        guard result == expected else {
            let hint =
                expected == .failure(.cancelled) || result == .failure(.cancelled) || result == nil
                ? "Decide when it finishes" : "One result"
            Issue.record(
                Comment(
                    rawValue: """
                        \(what); it finished with the result \(describe(result)), not \
                        \(describe(expected)) (hint: "\(hint)")
                        """), sourceLocation: sourceLocation)
            return
        }
        expectResultWhenFinished(expected, what, sourceLocation: sourceLocation)
    }

    /// Records an issue unless the result was `expected` when the queue learned that the
    /// operation finished, read from another thread.
    func expectResultWhenFinished(
        _ expected: Result<String, RequestError>?, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let problem: String? =
            switch seen.withLock({ $0 }) {
            case .notYet, .reading: nil  // not seen finished through this getter: nothing to say
            case .read(let result) where result == expected: nil
            case .read(let result):
                """
                \(what): when the queue learned that it finished, its result was \(describe(result)), \
                and only later \(describe(expected)) — whoever learns "finished" (the queue, a dependent) \
                reads it then (hint: "Decide when it finishes")
                """
            case .blocked:
                """
                \(what): when the queue learned that it finished, reading its result from another thread waited 2 s \
                without an answer — the finishing thread held the outcome's lock (hint: "Never under the lock")
                """
            }
        if let problem { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
    }
}
