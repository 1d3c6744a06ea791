import AsyncOperations
import ChainedOperations
import CompletionOperations
import Dispatch
import Foundation
import ResultOperations
import TaskOperations
import TestSupport

/// One stress run: operations of every type the package offers, spread over four queues of
/// different widths, with random dependencies (some added after the operation was queued),
/// barrier blocks between them, random cancellations and tasks that await operations (some
/// of them cancelled at random, some adding the operation with `run`, on queues with pending
/// barrier blocks, and cancelled before or after they add it), all decided up front by a seeded
/// generator — so the seed of a failed run builds the same graph again. (The threads' timing
/// is not replayed: a replay builds the same graph, and races it anew.)
///
/// The run lets go of each operation as early as Foundation allows a real program to: it holds
/// an operation while later operations may still be made to depend on it (the wave being added
/// and the one before), and until nothing holds it unretained any more — every dependency it
/// was given has finished, and every barrier block that was pending in its queue when it was
/// added has walked its dependents (Foundation keeps dependents unretained, also for
/// `BlockOperation`s: chapter 3's README). After that, only the queue, Foundation, the operations
/// that depend on it, and a task awaiting it hold it. A use after free of the package's own then
/// crashes (or, under AddressSanitizer, is reported) instead of hiding behind a test's
/// references; weak references check that every operation is freed.
///
/// An operation depends only on operations created before it, so the graph has no cycle.
/// Nobody calls `cancelAllOperations()`: operations are cancelled one by one, so waiting for
/// a queue with a barrier block (`drained`) is safe (chapter 3's README).
///
/// What it checks, for every operation: its completion block ran exactly once; when it ran,
/// the operation was finished and not executing, and not cancelled beside a success; every queue drained; every awaiting task returned; every barrier block ran; its work
/// ran once (a chained operation's only if its upstream gave it an input), or never if it was
/// cancelled before it was added, and only after all the dependencies it had when it was
/// queued had finished (one added later may not hold it back: Apple); a result
/// operation has a result, the one its fate allows, set by at most one `finish(with:)`; once
/// everything is done, it was freed.
/// (A second "isFinished" announcement for an operation Foundation already finished is
/// ignored on Linux, so only one that lands while the operation is pending shows here, as a
/// second completion; chapter 4's `CompletionOperationTests.callbackTwice` counts the
/// announcements themselves.)
final class StressRun: Sendable {
    enum Kind: CaseIterable, Equatable, Sendable {
        /// A subclass of the base, `AsyncOperation`.
        case base
        /// `CompletionOperation`.
        case completion
        /// `TaskOperation`.
        case task
        /// A subclass of `AsyncResultOperation`.
        case result
        /// A subclass of `ChainedAsyncResultOperation`, whose input is an earlier result.
        case chained
    }

    /// Whether, and when, the operation is cancelled.
    enum Fate: Equatable, Sendable {
        case runs
        /// Cancelled before it is added to its queue.
        case cancelledBeforeAdding
        /// Cancelled by the test's thread right after it was added: pending, running or done.
        case cancelledAfterAdding
        /// Cancelled from a global queue, at a moment nobody chose.
        case cancelledFromAnotherThread
        /// Cancelled by its own work: surely while it executes.
        case cancelledByItsWork
        /// Awaited by a task that owns it and is cancelled from a global queue, at a moment
        /// nobody chose: cancelling the task cancels the operation.
        case awaitingTaskCancelled
        /// Cancelled from another thread while its work finishes: the two race.
        case cancelledAsItFinishes
        /// Added by a task with `queue.run(_:)`, and that task is cancelled from a global
        /// queue at a moment nobody chose: before it added the operation, or after.
        case runByCancelledTask
    }

    /// How the work ends. (A `TaskOperation` finishes when its closure returns: it returns at
    /// once for `.atOnce`, after a `Task.yield()` otherwise.)
    enum Finishing: Equatable, Sendable {
        case atOnce
        case onAnotherThread
        /// From two threads at once: the second call must change nothing.
        case twice
    }

    struct Plan: Equatable, Sendable {
        let kind: Kind
        let fate: Fate
        let finishing: Finishing
        let queue: Int
        let dependencies: [Int]
        /// For `.chained`: the earlier result operation whose output is the input.
        let upstream: Int?
        /// For `.result`: it finishes with `.failure(.refused)` instead of its index.
        let refuses: Bool
        /// Whether a task awaits it (`untilFinished()`); always for `.awaitingTaskCancelled`.
        let awaited: Bool
        /// Dependencies added only after it was queued: too late, perhaps, to hold it back.
        let lateDependencies: [Int]
        /// Whether a barrier block is added to its queue right after it.
        let barrierAfter: Bool
    }

    static let queueWidths = [1, 2, 8, OperationQueue.defaultMaxConcurrentOperationCount]
    /// The queues that get barrier blocks between operations (of width 1 and 8). Operations
    /// cancelled before they are added go to the others: on Linux, adding an operation that
    /// is already cancelled to a queue with a pending barrier block deadlocks Foundation (the
    /// queue takes its own lock twice), whoever wrote the operation.
    static let queuesWithBarriers: Set<Int> = [0, 2]

    let seed: UInt64
    let plans: [Plan]
    let queues: [OperationQueue]
    /// The operations that later ones may still be made to depend on, by index.
    private let window = Locked<[Int: Operation]>([:])
    /// Every operation, weakly: to reach a live one, and to check that each was freed.
    private let weakOperations: Locked<[WeakOperation]>
    private let ledger: Locked<Ledger>
    private let waves: [(operations: Range<Int>, completed: Counter)]
    static let waveSize = 250
    /// How many barrier blocks were added, and how many ran.
    private let barriers = Locked((added: 0, ran: 0))
    /// Per queue: how many barrier blocks were added to it, and how many have walked their
    /// dependents (an operation added right after each barrier has started).
    private let barriersByQueue = Locked(Array(repeating: (added: 0, walked: 0), count: StressRun.queueWidths.count))
    /// The operations that something may still hold unretained, until it no longer may.
    private let held = Locked<[Int: Held]>([:])

    private struct Held {
        let operation: Operation
        /// Every dependency it was given (late ones too), and its upstream.
        let dependencies: [Int]
        let queue: Int
        /// The barrier blocks of its queue that must have walked their dependents: those added
        /// before it. (One that a task adds at a moment nobody chose waits for every barrier.)
        let barriers: Int
    }

    private struct WeakOperation {
        weak var operation: Operation?
    }

    /// What an operation looked like when its completion block ran.
    private struct FinalState {
        let isFinished: Bool
        let isExecuting: Bool
        let isCancelled: Bool
        /// As `outcome(of:)` describes it.
        let outcome: String?
    }

    private struct Ledger {
        var completions: [Int]
        var workRuns: [Int]
        var resultsSet: [Int]
        var finalStates: [FinalState?]
        var problems: [String] = []
    }

    init(count: Int, seed: UInt64) {
        self.seed = seed
        var random = SplitMix64(seed: seed)
        var plans: [Plan] = []
        var resultOperations: [Int] = []  // the indexes of .result and .chained operations
        var fates: [Fate] = []  // plans[i].fate, without copying a plan each time
        for index in 0..<count {
            // Dependencies and upstreams among the 100 operations created just before: the
            // wave being added or the one before, which the run still holds. Not those that a
            // task adds with `run`: it adds them at a moment nobody chose, perhaps after the
            // operations that would depend on them, and a barrier block between the two would
            // make a circular dependency (the barrier waits for the dependent, which waits for
            // the operation, which waits for the barrier) — a programmer error (Apple,
            // `addDependency(_:)`) that only Foundation's cancel() would break.
            let earlier = (max(0, index - 100)..<index).filter { fates[$0] != .runByCancelledTask }
            let upstreams = resultOperations.reversed().prefix { $0 >= index - 100 }.filter {
                fates[$0] != .runByCancelledTask
            }
            var kind = Kind.allCases.randomElement(using: &random)!
            if kind == .chained && upstreams.isEmpty { kind = .result }
            let fate: Fate =
                switch Int.random(in: 0..<16, using: &random) {
                case 0: .cancelledBeforeAdding
                case 1: .cancelledAfterAdding
                case 2: .cancelledFromAnotherThread
                case 3: .cancelledByItsWork
                case 4: .awaitingTaskCancelled
                case 5: .cancelledAsItFinishes
                case 6: .runByCancelledTask
                default: .runs
                }
            let finishing: Finishing = [.atOnce, .onAnotherThread, .twice].randomElement(using: &random)!
            let dependencyCount = earlier.isEmpty ? 0 : Int.random(in: 0...3, using: &random)
            let dependencies = Set((0..<dependencyCount).map { _ in earlier.randomElement(using: &random)! })
            let upstream = kind == .chained ? upstreams.randomElement(using: &random) : nil
            let queue =
                fate == .cancelledBeforeAdding
                ? Self.queueWidths.indices.filter { !Self.queuesWithBarriers.contains($0) }.randomElement(
                    using: &random)!
                : Int.random(in: 0..<Self.queueWidths.count, using: &random)
            let lateCount = earlier.isEmpty || Int.random(in: 0..<8, using: &random) != 0 ? 0 : 1
            let lateDependencies = Set((0..<lateCount).map { _ in earlier.randomElement(using: &random)! })
                .subtracting(dependencies)
            plans.append(
                Plan(
                    kind: kind, fate: fate, finishing: finishing,
                    queue: queue,
                    dependencies: dependencies.sorted(), upstream: upstream,
                    refuses: kind == .result && Int.random(in: 0..<8, using: &random) == 0,
                    awaited: fate == .awaitingTaskCancelled || Int.random(in: 0..<8, using: &random) == 0,
                    lateDependencies: lateDependencies.sorted(),
                    barrierAfter: Self.queuesWithBarriers.contains(queue) && Int.random(in: 0..<20, using: &random) == 0
                ))
            if kind == .result || kind == .chained { resultOperations.append(index) }
            fates.append(fate)
        }
        self.plans = plans
        queues = Self.queueWidths.map { width in
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = width
            return queue
        }
        ledger = Locked(
            Ledger(
                completions: Array(repeating: 0, count: count), workRuns: Array(repeating: 0, count: count),
                resultsSet: Array(repeating: 0, count: count), finalStates: Array(repeating: nil, count: count)))
        weakOperations = Locked(Array(repeating: WeakOperation(), count: count))
        waves = stride(from: 0, to: count, by: Self.waveSize).map { start in
            let operations = start..<min(count, start + Self.waveSize)
            return (operations, Counter(target: operations.count))
        }
    }

    /// Builds the operations wave by wave, adds them to their queues in the order they were
    /// created (cancelling the ones whose fate says so, starting the tasks that await some),
    /// and waits — without blocking a thread — until every completion block has run, every
    /// queue has drained and every awaiting task has returned, or `seconds` have passed; then
    /// until every operation has been freed. Returns what went wrong; empty if nothing did.
    ///
    /// A wave is added only once the one before the previous wave has completed: about two
    /// waves are in flight at a time, and dependencies reach across waves. Without waves the
    /// queues held thousands of waiting operations, and Foundation's queue walks all of its
    /// waiting operations each time it looks for one to start: 10,000 operations took 0.8–1 s
    /// instead of about 0.2 s, and 8–12 s instead of about 1.2 s under ThreadSanitizer,
    /// without exercising anything more.
    func run(within seconds: Double) async -> [String] {
        let deadline = DispatchTime.now() + seconds
        func secondsLeft() -> Double {
            max(0.1, Double(Int64(deadline.uptimeNanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds)) / 1e9)
        }
        var problems: [String] = []
        var added = 0
        var awaited = 0  // waves whose completions were awaited
        var awaitingTasks: [Task<Void, Never>] = []
        for wave in waves.indices {
            if wave >= 2 {
                guard await waves[awaited].completed.waitForTarget(seconds: secondsLeft()) else { break }
                awaited += 1
            }
            letGoOfWhatNothingHolds()
            // Each operation is made after the ones it depends on, and finds them in `window`.
            for index in waves[wave].operations {
                let operation = makeOperation(index)
                window.withLock { $0[index] = operation }
                weakOperations.withLock { $0[index].operation = operation }
            }
            for index in waves[wave].operations {
                awaitingTasks += add(index)
            }
            added = waves[wave].operations.upperBound
            // Nothing of the wave before can be made a dependency any more: let go of it.
            if wave >= 1 {
                window.withLock { window in
                    for index in waves[wave - 1].operations { window[index] = nil }
                }
            }
        }
        window.withLock { $0 = [:] }
        for wave in waves.indices where waves[wave].operations.upperBound <= added && wave >= awaited {
            guard await waves[wave].completed.waitForTarget(seconds: secondsLeft()) else { break }
            awaited += 1
        }
        if awaited < waves.count {
            let wave = waves[awaited]
            problems.append(
                """
                only \(wave.completed.value) of the \(wave.operations.count) completion blocks of operations \
                \(wave.operations) ran within \(seconds) s; \(plans.count - added) operations were never added
                """)
        }
        for (index, queue) in queues.enumerated() where await !drained(queue, within: secondsLeft()) {
            problems.append("the \(Self.describeQueue(index)) did not drain; \(queue.operationCount) operations left")
        }
        // Each queue drained behind a barrier block of its own: every one added before it ran.
        let barriers = barriers.withLock { $0 }
        if barriers.ran != barriers.added {
            problems.append("\(barriers.ran) of the \(barriers.added) barrier blocks ran")
        }
        let tasks = awaitingTasks
        awaitingTasks = []
        if await !completes(within: secondsLeft(), { for task in tasks { await task.value } }) {
            problems.append("not every task that awaits an operation returned within \(seconds) s")
        }
        letGoOfWhatNothingHolds(everything: barriers.ran == barriers.added)
        problems += check(0..<added)
        if problems.isEmpty { problems += await unfreed(within: secondsLeft()) }
        return problems
    }

    /// Adds operation `index` to its queue as its plan says; returns the task that awaits it,
    /// if one does.
    private func add(_ index: Int) -> [Task<Void, Never>] {
        let plan = plans[index]
        guard let operation = window.withLock({ $0[index] }) else { return [] }
        if plan.fate == .cancelledBeforeAdding { cancelDirectly(operation) }
        guard !operation.isFinished else {
            // Enqueuing it would trap; chapter 3: cancel() must leave that to start().
            ledger.withLock { $0.problems.append("\(describe(index)): cancel() finished it outside a queue") }
            return []
        }
        let queue = queues[plan.queue]
        var tasks: [Task<Void, Never>] = []
        if plan.fate == .runByCancelledTask {
            let task = Task { await queue.run(operation) }
            DispatchQueue.global().async { task.cancel() }
            tasks.append(task)
        } else {
            queue.addOperation(operation)
        }
        for dependency in plan.lateDependencies { operation.addDependency(heldOperation(dependency)) }
        let barriersBefore = barriersByQueue.withLock { $0[plan.queue].added }
        if plan.barrierAfter {
            barriers.withLock { $0.added += 1 }
            barriersByQueue.withLock { $0[plan.queue].added += 1 }
            queue.addBarrierBlock { [barriers] in barriers.withLock { $0.ran += 1 } }
            // Started once the barrier has walked the operations that depend on it.
            queue.addOperation { [barriersByQueue] in barriersByQueue.withLock { $0[plan.queue].walked += 1 } }
        }
        let dependencies = plan.dependencies + plan.lateDependencies + (plan.upstream.map { [$0] } ?? [])
        held.withLock { held in
            held[index] = Held(
                operation: operation, dependencies: dependencies, queue: plan.queue,
                barriers: plan.fate == .runByCancelledTask ? .max : barriersBefore)
        }
        switch plan.fate {
        case .cancelledAfterAdding: cancelDirectly(operation)
        case .cancelledFromAnotherThread: DispatchQueue.global().async { self.cancelDirectly(operation) }
        default: break
        }
        guard plan.awaited else { return tasks }
        guard plan.fate == .awaitingTaskCancelled else { return tasks + [Task { await operation.untilFinished() }] }
        // The awaiting task owns this one: cancelling the task cancels it, as `queue.run(_:)`
        // does (`untilFinished()` alone only watches).
        let task = Task {
            await withTaskCancellationHandler {
                await operation.untilFinished()
            } onCancel: {
                operation.cancel()
            }
        }
        DispatchQueue.global().async { task.cancel() }
        return tasks + [task]
    }

    /// Cancels `operation` as the test's own code, not through an awaiting task, and keeps no
    /// reference to it: only its queue and Foundation hold it, as in a real program.
    private func cancelDirectly(_ operation: Operation) {
        operation.cancel()
    }

    /// Lets go of the held operations that nothing can hold unretained any more: finished, their
    /// dependencies finished (their completion blocks ran, which Foundation sends off after it has
    /// walked their dependents), and the barrier blocks before them walked. With `everything`,
    /// once every queue has drained, lets go of all of them.
    private func letGoOfWhatNothingHolds(everything: Bool = false) {
        let completions = ledger.withLock { $0.completions }
        let walked = barriersByQueue.withLock { $0.map(\.walked) }
        let released: [Operation] = held.withLock { held in
            let free = held.filter { index, entry in
                everything
                    || (completions[index] > 0 && entry.dependencies.allSatisfy { completions[$0] > 0 }
                        && walked[entry.queue] >= entry.barriers)
            }
            for index in free.keys { held[index] = nil }
            return free.values.map(\.operation)
        }
        _ = released  // released here, outside the lock
    }

    /// Descriptions of the operations still alive once `seconds` have passed (an operation is
    /// freed just after its completion block has run, and Foundation lets go of it).
    private func unfreed(within seconds: Double) async -> [String] {
        let deadline = DispatchTime.now() + seconds
        var alive: [Int] = []
        repeat {
            alive = weakOperations.withLock { weak in weak.indices.filter { weak[$0].operation != nil } }
            if alive.isEmpty { return [] }
            try? await Task.sleep(nanoseconds: 2_000_000)
        } while DispatchTime.now() < deadline
        return alive.map { "\(describe($0)): never freed" }
    }

    // MARK: The operations

    private func makeOperation(_ index: Int) -> Operation {
        let plan = plans[index]
        let operation: Operation
        switch plan.kind {
        case .base:
            operation = StressOperation(run: self, index: index)
        case .completion:
            operation = CompletionOperation { [self] complete in work(index, finish: complete) }
        case .task:
            operation = TaskOperation { [self] in
                let operation = liveOperation(index)
                workStarts(index, operation)
                if plan.fate == .cancelledByItsWork { operation?.cancel() }
                if plan.fate == .cancelledAsItFinishes { DispatchQueue.global().async { operation?.cancel() } }
                if plan.finishing != .atOnce { await Task.yield() }
                return index
            }
        case .result:
            operation = StressResultOperation(run: self, index: index, refuses: plan.refuses)
        case .chained:
            let chained = StressChainedOperation(run: self, index: index)
            (heldOperation(plan.upstream!) as! AsyncResultOperation<Int, StressFailure>).then(chained)
            operation = chained
        }
        for dependency in plan.dependencies { operation.addDependency(heldOperation(dependency)) }
        // Weak: an operation that held its completion block, which held it, would never be freed.
        operation.completionBlock = { [self, weak operation] in
            let state = operation.map { operation in
                FinalState(
                    isFinished: operation.isFinished, isExecuting: operation.isExecuting,
                    isCancelled: operation.isCancelled, outcome: outcome(of: operation))
            }
            ledger.withLock { ledger in
                ledger.completions[index] += 1
                if ledger.finalStates[index] == nil { ledger.finalStates[index] = state }
                if state == nil { ledger.problems.append("\(describe(index)): freed before its completion block ran") }
            }
            waves[index / Self.waveSize].completed.increment()
        }
        return operation
    }

    /// An operation of the wave being built or the one before, which the run still holds.
    private func heldOperation(_ index: Int) -> Operation {
        window.withLock { $0[index]! }
    }

    /// Operation `index`, if it is still alive: it is while its work runs.
    fileprivate func liveOperation(_ index: Int) -> Operation? {
        weakOperations.withLock { $0[index].operation }
    }

    /// The work of operation `index`: records that it started, cancels the operation if its
    /// fate says so, and calls `finish` as planned.
    fileprivate func work(_ index: Int, finish: @escaping @Sendable () -> Void) {
        let operation = liveOperation(index)
        workStarts(index, operation)
        if plans[index].fate == .cancelledByItsWork { operation?.cancel() }
        if plans[index].fate == .cancelledAsItFinishes { DispatchQueue.global().async { operation?.cancel() } }
        switch plans[index].finishing {
        case .atOnce:
            finish()
        case .onAnotherThread:
            DispatchQueue.global().async(execute: finish)
        case .twice:
            DispatchQueue.global().async(execute: finish)
            DispatchQueue.global().async(execute: finish)
        }
    }

    private func workStarts(_ index: Int, _ operation: Operation?) {
        // The dependencies it had when it was queued (its upstream among them); a late one may
        // not hold it back. A dependency already freed had finished.
        let queuedWith = plans[index].dependencies + (plans[index].upstream.map { [$0] } ?? [])
        let unfinished = weakOperations.withLock { weak in
            queuedWith.filter { weak[$0].operation.map { !$0.isFinished } ?? false }.count
        }
        ledger.withLock { ledger in
            ledger.workRuns[index] += 1
            if operation == nil {
                ledger.problems.append("\(describe(index)): its work started after it was freed")
            }
            if unfinished > 0 {
                ledger.problems.append(
                    "\(describe(index)): its work started with \(unfinished) unfinished dependencies")
            }
        }
    }

    /// Counts the `finish(with:)` calls of result operations that did finish the operation.
    fileprivate func resultSet(_ index: Int) {
        ledger.withLock { $0.resultsSet[index] += 1 }
    }

    // MARK: What must hold

    private func check(_ added: Range<Int>) -> [String] {
        let ledger = ledger.withLock { $0 }
        var problems = ledger.problems
        for index in added {
            let plan = plans[index]
            func problem(_ text: String) { problems.append("\(describe(index)): \(text)") }

            if ledger.completions[index] != 1 { problem("its completion block ran \(ledger.completions[index]) times") }
            guard let state = ledger.finalStates[index] else { continue }  // reported already
            if !state.isFinished || state.isExecuting {
                problem(
                    "when its completion block ran: isFinished \(state.isFinished), isExecuting \(state.isExecuting)")
            }
            if state.isCancelled && state.outcome?.hasPrefix("success") == true {
                problem("isCancelled is true beside the result \(state.outcome!)")
            }
            if ledger.resultsSet[index] > 1 { problem("finish(with:) set a result \(ledger.resultsSet[index]) times") }
            let workRuns = ledger.workRuns[index]
            let cancelledForSure =
                plan.fate == .cancelledBeforeAdding || (plan.fate == .cancelledByItsWork && workRuns > 0)
            if cancelledForSure && !state.isCancelled { problem("isCancelled is false") }

            let ended = state.outcome
            let expectedRuns: ClosedRange<Int> =
                switch plan.fate {
                case .cancelledBeforeAdding: 0...0
                case .cancelledAfterAdding, .cancelledFromAnotherThread, .awaitingTaskCancelled, .runByCancelledTask:
                    0...1
                // A chained operation runs its work only if its upstream gave it an input.
                case .runs, .cancelledByItsWork, .cancelledAsItFinishes:
                    plan.kind == .chained && ended?.hasPrefix("failure(input(") == true ? 0...0 : 1...1
                }
            if !expectedRuns.contains(workRuns) { problem("its work ran \(workRuns) times") }

            if let expected = expectedOutcomes(index, ledger), let ended, !expected.contains(ended) {
                problem("ended with \(ended), expected one of \(expected.sorted())")
            } else if plan.kind != .base && plan.kind != .completion && ended == nil {
                problem("finished without a result")
            }
        }
        return problems
    }

    /// The results operation `index` may end with, described as `outcome(of:)` does; nil for
    /// an operation without a result.
    private func expectedOutcomes(_ index: Int, _ ledger: Ledger) -> Set<String>? {
        let plan = plans[index]
        let cancelled = "failure(cancelled)"
        // What it ends with if nobody cancels it.
        let uncancelled: Set<String>
        switch plan.kind {
        case .base, .completion:
            return nil
        case .task:
            uncancelled = ["success(\(index))"]
        case .result:
            uncancelled = [plan.refuses ? "failure(refused)" : "success(\(index))"]
        case .chained:
            let upstreamPlan = plans[plan.upstream!]
            guard let upstream = ledger.finalStates[plan.upstream!] else { return nil }  // reported already
            var fromUpstream: Set<String> = []
            switch upstream.outcome {
            case let success? where success.hasPrefix("success("):
                let value = Int(success.dropFirst("success(".count).dropLast())!
                fromUpstream.insert("success(\(value + 1))")
            case let failure?:
                fromUpstream.insert("failure(input(upstreamFailed(\(failure.dropFirst("failure(".count).dropLast()))))")
            case nil: fromUpstream.insert("failure(input(noInput))")
            }
            if upstream.isCancelled {
                // A cancel that raced the upstream's finish may have set isCancelled only after
                // this operation read it; one that surely came first decides.
                let surelyFirst =
                    upstreamPlan.fate == .cancelledBeforeAdding || upstreamPlan.fate == .cancelledByItsWork
                if surelyFirst { fromUpstream = [] }
                fromUpstream.insert("failure(input(upstreamCancelled))")
            }
            uncancelled = fromUpstream
        }
        switch plan.fate {
        case .runs:
            return uncancelled
        case .cancelledBeforeAdding:
            return [cancelled]
        case .cancelledByItsWork:
            // Cancelled before its work finished: whatever the work produced becomes the
            // cancellation (an input problem stops a chained operation before any work).
            return Set(uncancelled.map { $0.hasPrefix("failure(input(") ? $0 : cancelled })
        case .cancelledAfterAdding, .cancelledFromAnotherThread, .awaitingTaskCancelled, .cancelledAsItFinishes,
            .runByCancelledTask:
            return uncancelled.union([cancelled])
        }
    }

    /// The operation's result as text: "success(12)", "failure(cancelled)", …; nil if it has none.
    private func outcome(of operation: Operation) -> String? {
        if let operation = operation as? TaskOperation<Int> {
            return operation.result.map { result in
                switch result {
                case .success(let value): "success(\(value))"
                case .failure(let error): error is CancellationError ? "failure(cancelled)" : "failure(\(error))"
                }
            }
        }
        if let operation = operation as? AsyncResultOperation<Int, StressFailure> {
            return operation.result.map { result in
                switch result {
                case .success(let value): "success(\(value))"
                case .failure(let failure): "failure(\(failure))"
                }
            }
        }
        return nil
    }

    private static func describeQueue(_ index: Int) -> String {
        let width = queueWidths[index]
        return width == OperationQueue.defaultMaxConcurrentOperationCount
            ? "queue of default width" : "queue of width \(width)"
    }

    private func describe(_ index: Int) -> String {
        let plan = plans[index]
        return
            "operation \(index) (\(plan.kind), \(plan.fate)\(plan.awaited ? ", awaited" : ""), finishing \(plan.finishing), \(Self.describeQueue(plan.queue)), dependencies \(plan.dependencies), late \(plan.lateDependencies)\(plan.barrierAfter ? ", a barrier after it" : ""))"
    }
}

/// The failure of the stress run's result operations.
enum StressFailure: ChainableFailure, CustomStringConvertible {
    case cancelled
    case refused
    case input(InputProblem)

    var description: String {
        switch self {
        case .cancelled: "cancelled"
        case .refused: "refused"
        case .input(let problem): "input(\(problem))"
        }
    }
}

private final class StressOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only constants to a thread-safe superclass.
    private let run: StressRun
    private let index: Int

    init(run: StressRun, index: Int) {
        self.run = run
        self.index = index
    }

    override func main() {
        run.work(index) { self.finish() }
    }
}

private final class StressResultOperation: AsyncResultOperation<Int, StressFailure>, @unchecked Sendable {
    // @unchecked Sendable: adds only constants to a thread-safe superclass.
    private let run: StressRun
    private let index: Int
    private let refuses: Bool

    init(run: StressRun, index: Int, refuses: Bool) {
        self.run = run
        self.index = index
        self.refuses = refuses
    }

    override func main() {
        let result: Result<Int, StressFailure> = refuses ? .failure(.refused) : .success(index)
        run.work(index) { [run, index] in
            if self.finish(with: result) { run.resultSet(index) }
        }
    }
}

private final class StressChainedOperation: ChainedAsyncResultOperation<Int, Int, StressFailure>, @unchecked Sendable {
    // @unchecked Sendable: adds only constants to a thread-safe superclass.
    private let run: StressRun
    private let index: Int

    init(run: StressRun, index: Int) {
        self.run = run
        self.index = index
        super.init()
    }

    override func main(with input: Int) {
        run.work(index) { [run, index] in
            if self.finish(with: .success(input + 1)) { run.resultSet(index) }
        }
    }
}
