import AsyncOperations
import Coordinators
import Dispatch
import Exercise8
import Foundation
import TestSupport
import Testing

@Suite("Exercise 8 — a concurrent coordinator that collects errors safely")
struct Exercise8Tests {
    @Test("an empty list completes once, at once, with no errors")
    func emptyList() {
        let calls = Counter()
        let reported = Locked<[any Error]>([])
        SafeConcurrentCoordinator().perform(operations: []) { errors in
            reported.withLock { $0 += errors }
            calls.increment()
        }
        #expect(
            reported.withLock { $0 }.isEmpty,
            "an empty list completes with no errors (hint: \"Once, and only once\")")
        #expect(
            calls.value == 1,
            "an empty list must call the completion once, before perform returns (hint: \"Once, and only once\")")
    }

    @Test("the errors come in the order of the operations, not in the order they completed")
    func errorsInOrder() {
        let operations = (0..<5).map { HeldOperation(id: $0) }
        let reported = Locked<[Int]?>(nil)
        SafeConcurrentCoordinator().perform(operations: operations) { errors in
            reported.withLock { $0 = errors.map { ($0 as? Failed)?.id ?? -1 } }
        }
        #expect(
            operations.allSatisfy { $0.started },
            "perform must start every operation at once (hint: \"One slot per operation\")")
        for index in [3, 0, 4, 1, 2] { operations[index].complete() }
        let ids = reported.withLock { $0 }
        #expect(
            ids != nil,
            "the completion was never called after all five operations completed (hint: \"Once, and only once\")")
        if let ids, let problem = Self.problem(with: ids, expected: 5) {
            Issue.record(
                "\(problem): each error goes in its operation's slot, whatever order they complete in (hint: \"One slot per operation\")"
            )
        }
    }

    @Test("an operation that calls back twice counts once")
    func callbackTwice() {
        let calls = Counter()
        let twice = HeldOperation(id: 0)
        let once = HeldOperation(id: 1)
        SafeConcurrentCoordinator().perform(operations: [twice, once]) { _ in calls.increment() }
        twice.complete()
        twice.complete()
        #expect(
            calls.value == 0,
            "a second callback of the same operation completed the run early (hint: \"Once, and only once\")")
        once.complete()
        #expect(
            calls.value == 1,
            """
            after every operation called back, the completion was called \(calls.value) times, not once \
            (hint: "Once, and only once")
            """)
    }

    @Test("an operation that succeeds and calls back twice counts once too")
    func successCallbackTwice() {
        let calls = Counter()
        let reported = Locked<[Int]?>(nil)
        let twice = HeldOperation(id: 0, succeeds: true)
        let failing = HeldOperation(id: 1)
        let once = HeldOperation(id: 2, succeeds: true)
        SafeConcurrentCoordinator().perform(operations: [twice, failing, once]) { errors in
            reported.withLock { $0 = errors.map { ($0 as? Failed)?.id ?? -1 } }
            calls.increment()
        }
        twice.complete()
        twice.complete()
        failing.complete()
        #expect(
            calls.value == 0,
            """
            an operation that succeeded (no error) and called back twice completed the run early: "already called \
            back" is a slot's own mark, not "its error is there" — a success has no error (hint: "Once, and only once")
            """)
        once.complete()
        #expect(
            calls.value == 1 && reported.withLock({ $0 }) == [1],
            """
            after every operation called back, the completion was called \(calls.value) times with \
            \(String(describing: reported.withLock { $0 })): once, with the one error (hint: "Once, and only once")
            """)
    }

    @Test("the completion runs outside the lock: calling back again from inside it does not deadlock")
    func completionOutsideTheLock() async {
        let operation = HeldOperation(id: 0)
        let calls = Counter()
        SafeConcurrentCoordinator().perform(operations: [operation]) { _ in
            calls.increment()
            if calls.value == 1 { operation.complete() }  // a second callback, from inside the completion
        }
        let returned = await blockingCall(within: 5) { operation.complete() }
        #expect(
            returned,
            """
            deadlock: the completion was called while the lock was held, and a callback from inside it waited for that \
            lock (hint: "Outside the lock")
            """)
        if returned && calls.value == 0 {
            Issue.record(
                "the operation called back, and the completion was never called (hint: \"Once, and only once\")")
        } else if returned && calls.value > 1 {
            Issue.record(
                """
                the completion was called \(calls.value) times: a second callback, from inside the completion, completed \
                the run again. Only the call that fills the last slot completes it (hint: "Once, and only once")
                """)
        }
    }

    #if os(macOS) || os(Linux)
        @Test(
            "completions from two and four threads released at the same instant, run after run: every error, in order, one completion"
        )
        func completionsAtTheSameMoment() async {
            // In a process of its own: state touched by several threads without a lock can crash,
            // and a crash must fail this test, not end the others. The process writes what went
            // wrong, if anything, to a file named after this process, and exits normally. (Not
            // to its output: Swift Testing reads an exit test's output on a thread of the
            // pool that runs the tests, for as long as the child runs.)
            let report = Self.raceReport(of: getpid())
            try? FileManager.default.removeItem(at: report)
            defer { try? FileManager.default.removeItem(at: report) }
            let message = """
                the test process crashed while completions arrived from several threads at once: the slots, the \
                count, or both, are touched without a lock (hint: "One lock for everything")
                """
            await #expect(processExitsWith: .success, Comment(rawValue: message)) {
                Exercise8Tests.raceThenExit()
            }
            if let problem = try? String(contentsOf: report, encoding: .utf8), !problem.isEmpty {
                Issue.record(Comment(rawValue: problem))
            }
        }

        /// Where the child process writes what went wrong: named after the test's process.
        static func raceReport(of process: pid_t) -> URL {
            FileManager.default.temporaryDirectory.appendingPathComponent("exercise8-race-\(process).txt")
        }

        /// Runs `raceProblem` and ends the process, after writing what went wrong (or that the
        /// completions never returned), if anything did.
        static func raceThenExit() -> Never {
            let report = raceReport(of: getppid())
            Thread {
                Thread.sleep(forTimeInterval: 8 * boundStretch)
                try? Data("the completions never returned: a deadlock? (hint: \"Outside the lock\")".utf8).write(
                    to: report)
                exit(EXIT_SUCCESS)
            }.start()
            if let problem = raceProblem(together: 1_000, seconds: 2.5, orUntilAtLeast: 200, seconds: 5.5) {
                let hint = problem.hasSuffix("never called") ? "Once, and only once" : "One lock for everything"
                try? Data("\(problem) (hint: \"\(hint)\")".utf8).write(to: report)
            }
            exit(EXIT_SUCCESS)
        }
    #endif

    /// Coordinates operations again and again, each time delivering their completions from
    /// threads that start at the same instant, then 1,000 operations once. What went wrong the
    /// first time something did, or nil. Mostly 1,024 operations on eight threads; now and
    /// then a few operations on two or four threads, whose last completions come at the same
    /// moment.
    ///
    /// A race shows only while two threads really run at once, which a busy machine may not
    /// grant for seconds: the runs go on until `together` completions were delivered while
    /// another thread was delivering too (`StartingLine` counts them), or `seconds` passed —
    /// and past `seconds` until at least `minimum` were, for at most `cap` seconds.
    static func raceProblem(
        together: Int, seconds: Double, orUntilAtLeast minimum: Int, seconds cap: Double
    ) -> String? {
        let lines = [StartingLine(threads: 2), StartingLine(threads: 4), StartingLine(threads: 8)]
        let kinds = [
            (lines[2], 1_024), (lines[0], 8), (lines[2], 1_024), (lines[1], 4), (lines[2], 1_024), (lines[2], 64),
        ]
        let deadline = Date(timeIntervalSinceNow: seconds)
        let lastDeadline = Date(timeIntervalSinceNow: cap)
        var run = 0
        var concurrent = 0
        func goOn() -> Bool {
            let now = Date()
            return concurrent < together && now < lastDeadline && (now < deadline || concurrent < minimum)
        }
        while goOn() {
            let (line, count) = kinds[run % kinds.count]
            run += 1
            if let problem = problemCoordinating(count, on: line) {
                return "run \(run) (\(count) operations, \(line.threads) threads at once): \(problem)"
            }
            concurrent += line.concurrentStamps()
        }
        return problemCoordinating(1_000, on: lines[1]).map { "1,000 operations, 4 threads at once: \($0)" }
    }

    /// Coordinates `count` operations whose completions the threads of `line` deliver, each
    /// a share of them, last operation first. What went wrong, or nil.
    static func problemCoordinating(_ count: Int, on line: StartingLine) -> String? {
        let operations = (0..<count).map { HeldOperation(id: $0) }
        let reports = Locked<[[Int]]>([])
        SafeConcurrentCoordinator().perform(operations: operations) { errors in
            let ids = errors.map { ($0 as? Failed)?.id ?? -1 }
            reports.withLock { $0.append(ids) }
        }
        line.run { thread in
            for index in stride(from: count - 1 - thread, through: 0, by: -line.threads) {
                operations[index].complete()
                line.stamp(thread)
            }
        }
        // The completion runs on the thread that delivered the last operation's completion,
        // before that returns: by now it has run, once.
        let calls = reports.withLock { $0 }
        guard !calls.isEmpty else { return "the completion was never called" }
        guard calls.count == 1 else { return "the completion was called \(calls.count) times, not once" }
        return problem(with: calls[0], expected: count)
    }

    /// What is wrong with the reported error ids, in a few words; nil if they are 0..<expected.
    static func problem(with ids: [Int], expected count: Int) -> String? {
        let missing = Set(0..<count).subtracting(ids).sorted()
        if !missing.isEmpty {
            let shown = missing.prefix(3).map(String.init).joined(separator: ", ")
            return "\(missing.count) of \(count) errors missing (ids \(shown)\(missing.count > 3 ? ", ..." : ""))"
        }
        if ids.count > count { return "\(ids.count - count) errors reported twice" }
        if let position = ids.indices.first(where: { ids[$0] != $0 }) {
            return "out of order: error \(ids[position]) is reported at position \(position)"
        }
        return nil
    }
}

struct Failed: Error {
    let id: Int
}

/// An operation whose completion the test calls, with a `Failed` error carrying its id (or,
/// if it `succeeds`, no error).
private final class HeldOperation: CoordinatedOperation, @unchecked Sendable {
    // @unchecked Sendable: `completion` is only touched under `lock`; the rest is constant.
    let id: Int
    let succeeds: Bool
    private let lock = NSLock()
    private var completion: (@Sendable ((any Error)?) -> Void)?

    init(id: Int, succeeds: Bool = false) {
        self.id = id
        self.succeeds = succeeds
    }

    var started: Bool { lock.withLock { completion != nil } }

    func perform(completion: @escaping @Sendable ((any Error)?) -> Void) {
        lock.withLock { self.completion = completion }
    }

    func complete() {
        lock.withLock { completion }?(succeeds ? nil : Failed(id: id))
    }
}

/// Threads that run a job at the same instant: each waits for its turn, then spins until a
/// moment a little ahead, the same for all, so that they start within microseconds of each
/// other. They live as long as the process (an exit test's).
///
/// The job stamps the time of each step (`stamp`); `concurrentStamps` then tells how many steps
/// were taken while another thread was running too — between two of its steps less than
/// 20 µs apart. On a busy machine the threads often take turns on one processor instead.
final class StartingLine: @unchecked Sendable {
    // @unchecked Sendable: `job` and `startTime` are written before the threads are signalled
    // and read after; each thread writes only its own stamps and count, which are read (and
    // reset) once every thread has signalled `finished`. Every write happens before its reads.
    let threads: Int
    private var job: (@Sendable (Int) -> Void)?
    private var startTime: UInt64 = 0
    private let turns: [DispatchSemaphore]
    private let finished = DispatchSemaphore(value: 0)
    /// `capacity` stamps per thread, and how many each has taken; kept for good.
    private let capacity = 2_048
    private let stamps: UnsafeMutablePointer<UInt64>
    private let counts: UnsafeMutablePointer<Int>

    init(threads: Int) {
        self.threads = threads
        stamps = .allocate(capacity: threads * capacity)
        counts = .allocate(capacity: threads)
        counts.initialize(repeating: 0, count: threads)
        turns = (0..<threads).map { _ in DispatchSemaphore(value: 0) }
        for thread in 0..<threads {
            Thread { [self] in
                while true {
                    turns[thread].wait()
                    while DispatchTime.now().uptimeNanoseconds < startTime {}
                    job?(thread)
                    finished.signal()
                }
            }.start()
        }
    }

    /// Runs `job(0)`, `job(1)`... on the threads at once, and returns when all have returned.
    func run(_ job: @escaping @Sendable (Int) -> Void) {
        for thread in 0..<threads { counts[thread] = 0 }
        self.job = job
        startTime = DispatchTime.now().uptimeNanoseconds + 200_000
        for turn in turns { turn.signal() }
        for _ in turns { finished.wait() }
    }

    /// Called by the job on `thread`: the time of one step.
    func stamp(_ thread: Int) {
        let taken = counts[thread]
        guard taken < capacity else { return }
        stamps[thread * capacity + taken] = DispatchTime.now().uptimeNanoseconds
        counts[thread] = taken + 1
    }

    /// How many steps of the last run were taken while another thread was running too.
    func concurrentStamps() -> Int {
        // Each thread's running spans: between two of its steps less than 20 µs apart.
        var spans: [[(UInt64, UInt64)]] = []
        for thread in 0..<threads {
            let own = UnsafeBufferPointer(start: stamps + thread * capacity, count: counts[thread])
            spans.append(zip(own, own.dropFirst()).filter { $1 - $0 < 20_000 })
        }
        var concurrent = 0
        for thread in 0..<threads {
            for step in UnsafeBufferPointer(start: stamps + thread * capacity, count: counts[thread]) {
                let alongside = spans.indices.contains { other in
                    other != thread && spans[other].contains { $0.0 <= step && step <= $0.1 }
                }
                if alongside { concurrent += 1 }
            }
        }
        return concurrent
    }
}
