/// One guarantee that an asynchronous operation owes its queue, its dependents and its callers.
///
/// Each clause is something a chapter of AsyncOperationsPlayground proves with a test, and
/// each is checked by running your operation the way an app does: on a queue, with
/// dependents, waiters, a completion block, cancellations at the moments that matter.
/// ``chapter`` and ``chapterTitle`` name the chapter that explains it. The order is the
/// chapters': finishing first, then cancelling, then many operations at once.
///
/// ```swift
/// let report = await checkContract(clauses: [.cancelledBeforeStart, .cancelWhileRunning]) { work in
///     UploadOperation(work)
/// }
/// ```
public enum ContractClause: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Executing while its work runs: from before the work starts until after it ends, and
    /// not once it has finished.
    case executingWhileWorking
    /// Its finish is announced: a dependent starts after it, `waitUntilFinished()` returns, the
    /// completion block runs once, the queue lets it go.
    case finishIsAnnounced
    /// Work that ends at once — inside `main()`, before `start()` returns — finishes it, without
    /// a deadlock, and it stays finished.
    case workEndingAtOnce
    /// A second finish changes nothing: the work reporting its end twice, one after the other
    /// or from two threads at once, finishes it once.
    case secondFinishChangesNothing
    /// Cancelled before it starts, it finishes when its queue starts it, without running its
    /// work and without ever executing.
    case cancelledBeforeStart
    /// Cancelled while it waits in its queue, it stays unfinished until the queue starts it:
    /// `cancel()` never marks a waiting operation finished.
    case cancelWhileWaiting
    /// Cancelled while its work runs, it stays executing until the work has ended, and then
    /// finishes.
    case cancelWhileRunning
    /// Cancelling a running operation tells its work to stop, and whoever learns that it
    /// finished sees it cancelled.
    case cancelStopsTheWork
    /// A cancel that lands while it starts — after `start()` looked at `isCancelled`, before the
    /// work begins — still lets it finish.
    case cancelAsItStarts
    /// One result on every path: there when the finish is announced, a failure when the
    /// operation was cancelled, and never changed afterwards — by a late `cancel()` or a
    /// second report of the work. Checked only when you pass
    /// ``checkContract(clauses:patience:result:_:)`` a way to read the result.
    case resultOnEveryPath
    /// Dependencies hold under load: in chains of operations on a wide queue, no operation's
    /// work starts before the work of the one it depends on has ended.
    case dependenciesUnderLoad
    /// Many at once on a wide queue lose and double nothing: each finishes once, its
    /// completion block runs once, the queue drains.
    case manyAtOnce
    /// Freed once finished: nothing it holds keeps it alive, whether it ran, was cancelled,
    /// or was dropped without ever running.
    case freedOnceFinished
    /// Each change is announced with `willChangeValue(forKey:)` before and
    /// `didChangeValue(forKey:)` after it, as key-value observers need. Darwin only: on Linux,
    /// `willChangeValue(forKey:)` does nothing and cannot be observed.
    case announcedForObservers

    /// The guarantee, in one sentence.
    public var summary: String {
        switch self {
        case .executingWhileWorking: "Executing while its work runs, and only then"
        case .finishIsAnnounced: "Its finish is announced to dependents, waiters and the completion block"
        case .workEndingAtOnce: "Work that ends at once, inside main(), finishes it without a deadlock"
        case .secondFinishChangesNothing: "A second finish changes nothing"
        case .cancelledBeforeStart: "Cancelled before it starts, it finishes without running its work"
        case .cancelWhileWaiting: "Cancelled while it waits in its queue, it stays unfinished until the queue starts it"
        case .cancelWhileRunning: "Cancelled while its work runs, it stays executing until the work has ended"
        case .cancelStopsTheWork: "Cancelling tells its work to stop, and it ends cancelled"
        case .cancelAsItStarts: "A cancel that lands while it starts still lets it finish"
        case .resultOnEveryPath: "One result on every path, agreeing with isCancelled, never changed once finished"
        case .dependenciesUnderLoad: "Dependencies hold under load"
        case .manyAtOnce: "Many at once on a wide queue lose and double nothing"
        case .freedOnceFinished: "Freed once finished, or dropped without running"
        case .announcedForObservers: "Each change is announced with willChangeValue before and didChangeValue after"
        }
    }

    /// The number of the playground's chapter that explains this clause and shows it broken.
    public var chapter: Int {
        switch self {
        case .executingWhileWorking, .finishIsAnnounced, .dependenciesUnderLoad, .announcedForObservers: 2
        case .cancelledBeforeStart, .cancelWhileWaiting, .cancelWhileRunning, .cancelStopsTheWork,
            .cancelAsItStarts, .manyAtOnce, .freedOnceFinished:
            3
        case .workEndingAtOnce, .secondFinishChangesNothing: 4
        case .resultOnEveryPath: 6
        }
    }

    /// The title of the chapter that explains this clause.
    public var chapterTitle: String {
        switch chapter {
        case 2: "Managing the state by hand"
        case 3: "Cancellation"
        case 4: "CompletionOperation"
        default: "Generic Result operations"
        }
    }

    /// The clause's name, as written in Swift: `cancelledBeforeStart`.
    public var description: String { rawValue }
}
