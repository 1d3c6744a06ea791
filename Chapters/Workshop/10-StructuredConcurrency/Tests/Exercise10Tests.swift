import Dispatch
import Exercise10
import StructuredConcurrency
import TestSupport
import Testing

@Suite("Exercise 10 — a task group that keeps at most N children running")
struct Exercise10Tests {
    @Test("width 2, 8 jobs: at most 2 run at once, and all 8 finish")
    func atMostWidth() async {
        let gauge = ConcurrencyGauge()
        let twoStarted = Counter(target: 2)
        let threeStarted = Counter(target: 3)
        let open = Flag()
        let finished = Flag()
        Task {
            _ = try? await limitedMap(Array(1...8), width: 2) { _ in
                await gauge.measure {
                    twoStarted.increment()
                    threeStarted.increment()
                    _ = await open.wait(seconds: 5)
                }
            }
            finished.raise()
        }
        guard await twoStarted.waitForTarget(seconds: 5) else {
            Issue.record(
                "two children never started: start the first `width` before waiting (hint: \"Start width, then one per finished\")"
            )
            return
        }
        // A correct limit always waits out this short deadline; without one a third starts at once.
        let thirdStartedEarly = await threeStarted.waitForTarget(seconds: 0.3)
        open.raise()
        #expect(
            !thirdStartedEarly,
            "a third child started while two were still running: start only `width` at first (hint: \"Start width, then one per finished\")"
        )
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
        Task {
            _ = try? await limitedMap(Array(0..<count), width: 2) { element in
                starts.record("\(element)")
                _ = await mayEnd[element].wait(seconds: 5)
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
            if await Self.until(seconds: 0.2, { starts.events.count > started + 1 }) {
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

    @Test("while the running children wait, nothing else runs: elements not started yet do not wait for a slot")
    func nothingRunsWhileChildrenWait() async {
        guard #available(macOS 15.0, iOS 18.0, *) else { return }  // task executors
        // Everything limitedMap runs goes through an executor that counts the jobs it is given:
        // while two children wait for the test and nothing finishes, a width limit has nothing
        // to do. Children created ahead of their turn that check for a free slot now and then
        // keep waking up — and exist, every one of them, from the start.
        let executor = CountingExecutor()
        let twoStarted = Counter(target: 2)
        let open = Flag()
        let finished = Flag()
        Task(executorPreference: executor) {
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
        try? await Task.sleep(for: .milliseconds(100))  // the group settles into its wait
        let before = executor.jobs.value
        try? await Task.sleep(for: .milliseconds(500))
        let woke = executor.jobs.value - before
        open.raise()
        #expect(
            woke == 0,
            """
            while two children waited and none finished, limitedMap's tasks woke up \(woke) times in half a second: \
            elements that wait for a slot by checking now and then (sleep, check, sleep) keep a processor busy, and \
            all of them exist from the start. Start a child only when a slot is free — one per finished child — \
            so that waiting costs nothing (hint: "Start width, then one per finished")
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
            "results must be in the order of the elements, not the order they finished (hint: \"In order\")")
    }

    @Test("a width larger than the count, and an empty input")
    func edges() async throws {
        let wide = try await limitedMap([1, 2, 3], width: 10) { $0 + 1 }
        #expect(wide == [2, 3, 4], "width 10, three elements: \(wide) (hint: \"Start width, then one per finished\")")
        let empty = try await limitedMap([Int](), width: 2) { $0 }
        #expect(empty.isEmpty, "no elements: no results (hint: \"Start width, then one per finished\")")
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

/// An executor that counts the jobs it is given, and runs them on a dispatch queue.
@available(macOS 15.0, iOS 18.0, *)
final class CountingExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` is a thread-safe counter; the queue is thread-safe.
    let jobs = Counter()
    private let queue = DispatchQueue(label: "exercise10-counted", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        jobs.increment()
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
