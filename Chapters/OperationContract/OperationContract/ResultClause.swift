import Dispatch
import Foundation

// The clause about results (chapter 6), for operations whose result the caller can read.

/// A result, as the kit compares it: success or failure, and what it said.
enum ResultShape: Sendable, Equatable, CustomStringConvertible {
    case success(String)
    case failure(String)

    init<Success, Failure>(_ result: Result<Success, Failure>) {
        switch result {
        case .success(let value): self = .success(String(describing: value))
        case .failure(let error): self = .failure(String(describing: error))
        }
    }

    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }

    var description: String {
        switch self {
        case .success(let value): "success(\(value))"
        case .failure(let error): "failure(\(error))"
        }
    }
}

extension Checker {
    /// Three paths — finished, cancelled before it starts, cancelled while its work runs — each
    /// with one result, there when the finish is announced, agreeing with `isCancelled`; then a
    /// late `cancel()` and a second report of the work, which change nothing.
    func resultOnEveryPath(_ findings: inout Findings) async {
        guard let readResult else {
            return findings.cannotCheck(
                "no way to read the result was given: pass checkContract(result:) the key path of the result")
        }
        await finishedPath(readResult, &findings)
        await cancelledBeforeStartPath(readResult, &findings)
        await cancelledWhileRunningPath(readResult, &findings)
    }

    private func finishedPath(_ readResult: @escaping @Sendable (Operation) -> ResultShape?, _ findings: inout Findings)
        async
    {
        let subject = subject(ending: .held)
        subject.watch.attach()
        guard await run(subject, on: OperationQueue(), &findings) else { return }
        guard await untilExecuting(subject) != nil else {
            return stuck(subject, "reading isExecuting did not return while its work ran", &findings)
        }
        let done = subject.work.takeEnding()  // nil for work in a task: it returns now
        if let done, !(await returns(within: patience, { done() })) {
            return stuck(subject, "its work ended, and the call that reported it never returned", &findings)
        }
        guard await subject.watch.learned.wait(seconds: patience) else {
            return stuck(subject, "its work ended, and it never finished", &findings)
        }
        guard case .some(.some(let announced)) = subject.watch.resultAtAnnouncement else {
            findings.fail(
                "when it announced its finish, it had no result yet: a dependent or a completion block that reads it finds nil"
            )
            return subject.watch.detach()
        }
        if announced.isFailure {
            findings.note("finished without a cancel, its result was \(announced)")
        }
        // A cancel() once it has finished, and a second report of its work: neither may change it.
        guard await cancel(subject) else {
            return stuck(subject, "cancel() never returned after it had finished", &findings)
        }
        let operation = subject.operation
        let afterCancel = await value(within: patience) { (readResult(operation), operation.isCancelled) }
        if let (result, cancelled) = afterCancel {
            if result != announced {
                findings.fail(
                    "a cancel() after it had finished changed its result from \(announced) to \(result.map(\.description) ?? "nil")"
                )
            }
            if cancelled {
                findings.fail(
                    "a cancel() after it had finished made it say isCancelled = true, beside its \(announced)")
            }
        }
        if let done {
            guard await returns(within: patience, { done() }) else {
                return stuck(subject, "a second report of its work never returned", &findings)
            }
            let afterSecond = await value(within: patience) { readResult(operation) }
            if let result = afterSecond, result != announced {
                findings.fail(
                    "a second report of its work changed its result from \(announced) to \(result.map(\.description) ?? "nil")"
                )
            }
        }
        subject.watch.detach()
    }

    private func cancelledBeforeStartPath(
        _ readResult: @escaping @Sendable (Operation) -> ResultShape?, _ findings: inout Findings
    ) async {
        let subject = subject(ending: .atOnce)
        subject.watch.attach()
        guard await cancel(subject) else {
            return stuck(subject, "cancel() never returned", &findings)
        }
        guard await enqueue([subject], on: OperationQueue()) else {
            return stuck(subject, "addOperation(_:) did not return", &findings)
        }
        guard await subject.watch.learned.wait(seconds: patience) else {
            return stuck(subject, "cancelled before it started, it never finished", &findings)
        }
        switch subject.watch.resultAtAnnouncement {
        case .some(.some(let result)) where !result.isFailure:
            findings.fail("cancelled before it started, it finished with \(result)")
        case .some(.none), .none:
            findings.fail("cancelled before it started, it finished without a result")
        default:
            break
        }
        subject.watch.detach()
    }

    private func cancelledWhileRunningPath(
        _ readResult: @escaping @Sendable (Operation) -> ResultShape?, _ findings: inout Findings
    ) async {
        // The work reports its end a moment after it is told to stop, from another thread, as a
        // cancelled request does: with a success, like every report of the kit's work.
        let subject = subject(ending: .soonAfterStopped)
        subject.watch.attach()
        guard await run(subject, on: OperationQueue(), &findings) else { return }
        guard await untilExecuting(subject) != nil else {
            return stuck(subject, "reading isExecuting did not return while its work ran", &findings)
        }
        guard await cancel(subject) else {
            return stuck(subject, "cancel() never returned while its work ran", &findings)
        }
        if !(await subject.work.stopped.wait(seconds: patience)) {
            subject.work.end()  // never told to stop (cancelStopsTheWork says so): it ends now
        }
        guard await subject.watch.learned.wait(seconds: patience) else {
            return stuck(subject, "cancelled while its work ran, it never finished", &findings)
        }
        await pause(settle)
        let operation = subject.operation
        guard
            let (result, cancelled) = await value(within: patience, { (readResult(operation), operation.isCancelled) })
        else {
            return stuck(subject, "reading its result did not return", &findings)
        }
        if cancelled && result?.isFailure != true {
            findings.fail(
                "cancelled while its work ran, it ended with \(result.map(\.description) ?? "no result"): the work's report replaced the cancellation"
            )
        } else if !cancelled && result?.isFailure == true {
            findings.fail(
                "cancelled while its work ran, it ended with \(result.map(\.description) ?? "no result") but says isCancelled = false"
            )
        }
        if case .some(.some(let announced)) = subject.watch.resultAtAnnouncement, announced != result {
            findings.fail(
                "cancelled while its work ran, it announced its finish with \(announced), and later said \(result.map(\.description) ?? "nil")"
            )
        }
        subject.watch.detach()
    }
}
