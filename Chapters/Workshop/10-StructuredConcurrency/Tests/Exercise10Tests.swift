import Dispatch
import Exercise10
import Foundation
import StructuredConcurrency
import TestSupport
import Testing

@Suite("Exercise 10 — a task group that keeps at most N children running")
struct Exercise10Tests {
    #if os(macOS) || os(Linux)  // exit tests: Swift 6.2's, where a child process can run
        @Test("width 0 is a mistake of the caller's: limitedMap stops the program, even with nothing to map")
        func widthZeroTraps() async {
            // No elements: without the precondition nothing else would fail, and it returns [].
            let message: Comment =
                "limitedMap([], width: 0) returned instead of stopping the program (the stub's precondition)"
            await #expect(
                processExitsWith: .failure, message
            ) {
                _ = try await limitedMap([Int](), width: 0) { $0 }
            }
        }
    #endif

    @Test("width 2, 8 jobs: at most 2 run at once, and all 8 finish")
    func atMostWidth() async {
        let gauge = ConcurrencyGauge()
        let started = Counter(target: 2)
        let open = Flag()
        let finished = Flag()
        let tasks = TasksOfTheTest()
        tasks.run {
            _ = try? await limitedMap(Array(1...8), width: 2) { _ in
                await gauge.measure {
                    started.increment()
                    _ = await open.wait(seconds: 20)  // longer than any bound of the test: it ends them
                }
            }
            finished.raise()
        }
        guard await started.waitForTarget(seconds: 5) else {
            open.raise()
            Issue.record(
                "two children never started: start the first `width` before waiting (hint: \"Start width, then one per finished\")"
            )
            return
        }
        // Once everything limitedMap started is waiting, nothing more can start until a child
        // ends: a third child started by then is one too many.
        let settled = await tasks.settle()
        let startedWhileTwoRan = started.value
        open.raise()
        #expect(
            startedWhileTwoRan <= 2,
            """
            while the first two children waited (none had finished), \(startedWhileTwoRan) children had started\
            \(settled.description): start only `width` at first (hint: "Start width, then one per finished")
            """)
        guard await finished.wait(seconds: 5) else {
            Issue.record(
                "limitedMap never returned: does each finished child start the next element? (hint: \"Start width, then one per finished\")"
            )
            return
        }
        #expect(
            gauge.most <= 2,
            "\(gauge.most) children ran at once; the limit is 2 (hint: \"Start width, then one per finished\")")
        #expect(
            gauge.finished == 8, "\(gauge.finished) of 8 elements ran (hint: \"Start width, then one per finished\")")
    }

    @Test("width 2: when one of the two running finishes, one more starts at once — while the other still runs")
    func slidingWindow() async {
        let count = 6
        let starts = EventLog()
        let mayEnd = (0..<count).map { _ in Flag() }
        let finished = Flag()
        let tasks = TasksOfTheTest()
        tasks.run {
            _ = try? await limitedMap(Array(0..<count), width: 2) { element in
                starts.record("\(element)")
                _ = await mayEnd[element].wait(seconds: 20)  // longer than any bound of the test
            }
            finished.raise()
        }
        defer { for flag in mayEnd { flag.raise() } }
        guard await Self.until(seconds: 5, { starts.events.count >= 2 }) else {
            Issue.record(
                "two children never started: start the first `width` before waiting (hint: \"Start width, then one per finished\")"
            )
            return
        }
        var ended: Set<Int> = []
        for started in 2..<count {
            // The later of the two running ends; the earlier one still runs.
            let running = Set(starts.events.compactMap { Int($0) }).subtracting(ended)
            guard running.count == 2, let ending = running.max(), let other = running.min() else {
                Issue.record(
                    "\(running.count) children were running, not 2 (hint: \"Start width, then one per finished\")")
                return
            }
            ended.insert(ending)
            mayEnd[ending].raise()
            guard await Self.until(seconds: 5, { starts.events.count > started }) else {
                Issue.record(
                    """
                    element \(ending) finished while element \(other) still ran, but no other element started: waiting \
                    for a whole batch lets the slowest child hold back the rest. Start the next element as soon as \
                    any child finishes (hint: "A sliding window")
                    """)
                return
            }
            _ = await tasks.settle()
            if starts.events.count > started + 1 {
                Issue.record(
                    """
                    when element \(ending) finished, \(starts.events.count - started) elements started: one finished \
                    child makes room for one (hint: "Start width, then one per finished")
                    """)
                return
            }
        }
        for flag in mayEnd { flag.raise() }
        #expect(
            await finished.wait(seconds: 5), "limitedMap never returned (hint: \"Start width, then one per finished\")")
    }

    /// True once `condition` holds, false if `seconds` pass first.
    static func until(seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    @Test("while the running children wait, no other child exists, and nothing wakes up")
    func nothingRunsWhileChildrenWait() async {
        // Everything limitedMap runs goes through an executor that counts the jobs it is given:
        // while two children wait for the test and nothing finishes, a width limit has nothing
        // to do. Children created ahead of their turn that check for a free slot now and then
        // keep waking up — and exist, every one of them, from the start.
        let tasks = TasksOfTheTest()
        guard tasks.canWatch else { return }  // task executors: macOS 15, iOS 18
        let twoStarted = Counter(target: 2)
        let open = Flag()
        let finished = Flag()
        tasks.run {
            _ = try? await limitedMap(Array(0..<6), width: 2) { _ in
                twoStarted.increment()
                _ = await open.wait(seconds: 10)
            }
            finished.raise()
        }
        guard await twoStarted.waitForTarget(seconds: 5) else {
            open.raise()
            Issue.record(
                "two children never started: start the first `width` before waiting (hint: \"Start width, then one per finished\")"
            )
            return
        }
        let settled = await tasks.settle()
        let children = tasks.taskCount - 1  // all but the task that called limitedMap
        guard children <= 2 else {
            open.raise()
            Issue.record(
                """
                while the first two children waited (none had finished), limitedMap had created \(children) child \
                tasks: only `width` of them may exist until one finishes — elements created ahead of their turn, waiting \
                for a slot, still cost a task each (hint: "Start width, then one per finished")
                """)
            return
        }
        let before = tasks.jobs
        try? await Task.sleep(for: .milliseconds(300))
        let woke = tasks.jobs - before
        open.raise()
        let seen = settled.settled ? "woke up \(woke) times in 0.3 s" : "never stopped running\(settled.description)"
        #expect(
            settled.settled && woke == 0,
            """
            while two children waited and none finished, limitedMap's tasks \(seen): elements that wait for a slot \
            by checking now and then (sleep, check, sleep) keep a processor busy, and all of them exist from the \
            start. Start a child only when a slot is free — one per finished child — so that waiting costs nothing \
            (hint: "Start width, then one per finished")
            """)
        #expect(
            await finished.wait(seconds: 5),
            "limitedMap never returned (hint: \"Start width, then one per finished\")")
    }

    @Test("results come back in the order of the input, not the order they finished")
    func inputOrder() async throws {
        let othersDone = Counter(target: 9)  // element 0 finishes last
        let values = try await limitedMap(Array(0..<10), width: 3) { element in
            if element == 0 { _ = await othersDone.waitForTarget(seconds: 2) } else { othersDone.increment() }
            return element * 2
        }
        #expect(
            values == (0..<10).map { $0 * 2 },
            """
            element 0 finished last, and the results were \(values), not \((0..<10).map { $0 * 2 }): in the order of \
            the elements, not the order they finished (hint: "In order")
            """)
    }

    @Test("a width larger than the count, and an empty input")
    func edges() async throws {
        let wide = try await limitedMap([1, 2, 3], width: 10) { $0 + 1 }
        #expect(wide == [2, 3, 4], "width 10, three elements: \(wide) (hint: \"Start width, then one per finished\")")
        let empty = try await limitedMap([Int](), width: 2) { $0 }
        #expect(empty.isEmpty, "no elements: no results (hint: \"Start width, then one per finished\")")
    }

    @Test("width 2: an error cancels the child still running, and no element starts after it")
    func errorCancelsTheRunning() async {
        struct Failed: Error {}
        let starts = EventLog()
        let zeroRuns = Flag()
        let zeroCancelled = Flag()
        let ended = EventLog()
        let finished = Flag()
        Task {
            do {
                _ = try await limitedMap(Array(0..<6), width: 2) { element in
                    starts.record("\(element)")
                    switch element {
                    case 0:
                        zeroRuns.raise()
                        // Runs until it is cancelled (20 s at most: longer than the test's bounds).
                        await withTaskCancellationHandler {
                            _ = await zeroCancelled.wait(seconds: 20)
                        } onCancel: {
                            zeroCancelled.raise()
                        }
                    case 1:
                        _ = await zeroRuns.wait(seconds: 20)
                        throw Failed()
                    default: break
                    }
                }
                ended.record("returned")
            } catch {
                ended.record(error is Failed ? "threw" : "threw \(error)")
            }
            finished.raise()
        }
        guard await finished.wait(seconds: 5) else {
            Issue.record(
                """
                element 1 threw while element 0 ran, and 5 s later limitedMap had not returned\
                \(zeroCancelled.isRaised ? "" : "; element 0 was never cancelled"): leaving the group cancels the \
                children still running (hint: "An error stops the rest")
                """)
            return
        }
        #expect(
            ended.events == ["threw"],
            """
            element 1 threw, and limitedMap \(ended.events.first ?? "never ended"): it rethrows the child's error (hint: \
            "An error stops the rest")
            """)
        #expect(
            zeroCancelled.isRaised,
            """
            element 1 threw while element 0 ran, and element 0 was never cancelled: let the error leave the group, \
            which cancels the children still running (hint: "An error stops the rest")
            """)
        #expect(
            starts.events.sorted() == ["0", "1"],
            """
            element 1 threw while element 0 ran, and elements \(starts.events) started: none starts after the error \
            (hint: "An error stops the rest")
            """)
    }

    @Test("an error is rethrown, and no element starts after it")
    func errorStopsTheRest() async {
        struct Failed: Error {}
        let started = Counter()
        do {
            _ = try await limitedMap(Array(0..<10), width: 1) { element in
                started.increment()
                if element == 2 { throw Failed() }
            }
            Issue.record("the error was not rethrown (hint: \"An error stops the rest\")")
        } catch {
            #expect(
                error is Failed, "the error rethrown must be the child's: \(error) (hint: \"An error stops the rest\")")
        }
        #expect(
            started.value == 3,
            "\(started.value) elements started; with width 1, the error at the third stops the rest (hint: \"An error stops the rest\")"
        )
    }
}

/// Runs the code under test in a task whose jobs, and its children's, all go through an executor
/// of the test's, where task executors exist (macOS 15, iOS 18, Linux): the test can then tell
/// when everything that task started is waiting for something.
final class TasksOfTheTest: Sendable {
    private let executor: (any Sendable)?

    init() {
        if #available(macOS 15.0, iOS 18.0, *) { executor = WatchedExecutor() } else { executor = nil }
    }

    /// Whether the jobs are watched (task executors exist here).
    var canWatch: Bool { executor != nil }

    /// How many jobs the task and its children have been given so far (0 if not watched).
    var jobs: Int {
        guard #available(macOS 15.0, iOS 18.0, *), let executor = executor as? WatchedExecutor else { return 0 }
        return executor.jobs
    }

    /// How many tasks — the one `run` made, and the children it created — have run so far (0 if
    /// not watched).
    var taskCount: Int {
        guard #available(macOS 15.0, iOS 18.0, *), let executor = executor as? WatchedExecutor else { return 0 }
        return executor.taskCount
    }

    /// Runs `body` in a new task, on the watched executor where there is one.
    func run(_ body: @escaping @Sendable () async -> Void) {
        if #available(macOS 15.0, iOS 18.0, *), let executor = executor as? WatchedExecutor {
            Task(executorPreference: executor) { await body() }
        } else {
            Task { await body() }
        }
    }

    /// What `settle()` saw.
    struct Settled {
        /// True once no job was left to run; false if jobs kept coming for 5 s.
        let settled: Bool
        /// How it decided, for a message: "" when it saw the tasks settle.
        let description: String
    }

    /// Waits until no job of the task or its children is left to run: each is waiting for
    /// something that only the test can do. Where jobs are not watched, waits 0.3 s instead.
    func settle() async -> Settled {
        guard #available(macOS 15.0, iOS 18.0, *), let executor = executor as? WatchedExecutor else {
            try? await Task.sleep(for: .milliseconds(300))
            return Settled(settled: true, description: " (0.3 s after the second started)")
        }
        let deadline = ContinuousClock.now + .seconds(5 * boundStretch)
        var quietLooks = 0  // two looks in a row with nothing pending and no new job between them
        var lastJobs = -1
        while ContinuousClock.now < deadline {
            let (pending, jobs) = executor.state
            quietLooks = pending == 0 && jobs == lastJobs ? quietLooks + 1 : 0
            if quietLooks >= 2 { return Settled(settled: true, description: "") }
            lastJobs = jobs
            try? await Task.sleep(for: .milliseconds(2))
        }
        return Settled(settled: false, description: " (its tasks kept running for 5 s)")
    }
}

/// An executor that runs the jobs it is given on a dispatch queue, and counts them: how many it
/// was given, and how many have not finished running.
@available(macOS 15.0, iOS 18.0, *)
final class WatchedExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `counts` is only touched under `lock`; the queue is thread-safe.
    private let lock = NSLock()
    private var counts = (pending: 0, given: 0)
    private var tasks: Set<String> = []
    private let queue = DispatchQueue(label: "exercise10-watched", attributes: .concurrent)

    /// Jobs given and not finished yet, and jobs given in all.
    var state: (pending: Int, given: Int) { lock.withLock { counts } }
    var jobs: Int { state.given }

    /// How many tasks have had a job run here: a job's description names its task's id
    /// ("ExecutorJob(id: 3)"; an actor's own job says "id: nil").
    var taskCount: Int { lock.withLock { tasks.count } }

    func enqueue(_ job: consuming ExecutorJob) {
        let task = job.description
        lock.withLock {
            counts.pending += 1
            counts.given += 1
            if !task.hasSuffix("(id: nil)") { tasks.insert(task) }  // an actor's job names no task
        }
        let job = UnownedJob(job)
        queue.async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
            self.lock.withLock { self.counts.pending -= 1 }
        }
    }
}
