import Foundation
import Testing
import WorkshopKit

#if os(Linux)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a check says (issue 34): what was observed, never a guess; a run ended from outside
/// blames nobody; the race detector's known false reports of `Mutex` never fail a right
/// answer, and a real race still does; the contract kit's suite waits for the exercise's own
/// tests; `list` keeps its columns.
@Suite("Workshop runner — a check says what it saw")
struct CheckTests {
    /// A recorded ThreadSanitizer report (Fixtures/<name>), its Swift names made readable as
    /// the runner makes them, and the exercise's file it was made from.
    static func races(_ name: String) throws -> (races: [DataRace], source: String) {
        let fixture = Fixture(name: name)
        let report = try #require(fixture.text("tsan-report.txt"))
        let names = DataRace.demangledNames(in: try #require(fixture.text("demangled.txt")))
        let races = DataRace.reports(in: report).map { race in race.demangled { _ in names } }
        return (races, try #require(fixture.text("source.swift")))
    }

    @Test("a right answer with a Mutex (exercise 8): ThreadSanitizer's reports inside withLock are set aside")
    func mutexHandOffSetAside() throws {
        // A correct Collector whose slots and count live in one Mutex: on Linux, ThreadSanitizer
        // reported 4 races between two threads' withLock bodies (the recording's run).
        let (races, source) = try Self.races("race8mutex")
        #expect(races.count == 4)
        for race in races {
            #expect(race.isMutexHandOff { _ in source }, "\(race.accesses.map { $0.frames.prefix(2) })")
        }
        // The same report, in a file that does not use Synchronization's Mutex, is a race.
        let withoutMutex = source.replacingOccurrences(of: "import Synchronization", with: "")
        #expect(races.allSatisfy { !$0.isMutexHandOff { _ in withoutMutex } })
    }

    @Test("a Mutex whose withLock closure is inlined at its call (a fresh attendee's exercise 8): set aside too")
    func mutexHandOffInlined() throws {
        // One access's innermost frame in the learner's file is the callback at the withLock
        // line (36) itself, the other the closure inside it (lines 38 and 39).
        let (races, source) = try Self.races("race8mutexinline")
        #expect(races.count == 4)
        for race in races {
            #expect(race.isMutexHandOff { _ in source }, "\(race.accesses.map { $0.frames.prefix(2) })")
        }
        let withoutMutex = source.replacingOccurrences(of: "import Synchronization", with: "")
        #expect(races.allSatisfy { !$0.isMutexHandOff { _ in withoutMutex } })
    }

    @Test("a real race beside a Mutex (the count outside it) still fails the check, at the learner's line")
    func realRaceBesideAMutexKept() throws {
        // The slots in a Mutex, the count written outside any lock (line 45).
        let (races, source) = try Self.races("race8mutexcount")
        let kept = races.filter { !$0.isMutexHandOff { _ in source } }
        #expect(!kept.isEmpty)
        #expect(
            kept.contains { race in race.accesses.contains { $0.frames.first { $0.file != nil }?.line == 45 } },
            "the count's line is named")
        // The tests passed (a recorded run that did), and these races were seen.
        var observation = Fixture(name: "pass5").observation
        observation.races = kept
        #expect(Judgement(observation).verdict == .dataRace)
    }

    @Test("a run that something outside ended blames nobody: the package manager or the tests killed")
    func endedFromOutside() throws {
        let events = try #require(Fixture(name: "fail2").text("events.jsonl")).split(separator: "\n").map(String.init)
        var started = RunLog()
        started.add(lines: Array(events.prefix { !$0.contains("\"kind\":\"runEnded\"") }))
        // The package manager killed (kill -9): its own exit status says so.
        let manager = RunObservation(exitStatus: 128 + SIGKILL, console: "", log: started)
        #expect(RunObservation.endedFromOutside(manager) == "the package manager ended with signal 9 (SIGKILL)")
        // The tests killed: the package manager says nothing of a SIGKILL, and no crash report.
        let silent = RunObservation(exitStatus: 1, console: "", log: started)
        #expect(RunObservation.endedFromOutside(silent)?.contains("neither a signal nor a crash report") == true)
        let terminated = RunObservation(
            exitStatus: 1, console: "error: … exited with unexpected signal code 15", log: started)
        #expect(RunObservation.endedFromOutside(terminated) == "the tests ended with signal 15 (SIGTERM)")
        // What the learner's code does is never taken for it: a crash, a failure, a pass.
        #expect(RunObservation.endedFromOutside(Fixture(name: "crash10index").observation) == nil)
        #expect(RunObservation.endedFromOutside(Fixture(name: "crash1conditionlock").observation) == nil)
        #expect(RunObservation.endedFromOutside(Fixture(name: "fail2").observation) == nil)
        #expect(RunObservation.endedFromOutside(Fixture(name: "pass5").observation) == nil)
        #expect(RunObservation.endedFromOutside(Fixture(name: "stuck7one").observation) == nil)
        let said = Explainer.endedFromOutside("the tests ended with signal 9 (SIGKILL)").joined(separator: "\n")
        #expect(said.contains("Nothing was judged: check again.") && !said.contains("crashed"))
    }

    @Test("a failure's message, several lines long (the contract kit's report), is indented line by line")
    func messagesIndented() {
        let report = "the contract kit's report:\nA: 1 of 5 clauses failed\n  FAILED x\n      - seen"
        #expect(
            Explainer.indented([report, "second"]) == [
                "      the contract kit's report:", "      A: 1 of 5 clauses failed", "        FAILED x",
                "            - seen", "      second",
            ])
        let long = Explainer.indented([(1...20).map(String.init).joined(separator: "\n")], limit: 16)
        #expect(long.count == 17 && long.last == "      … (4 more lines)")
    }

    @Test("the contract kit's suite is left out of a check's first run, and nothing else is")
    func contractSuiteWaits() throws {
        let exercise = try repositoryExercise(4)
        let pattern = try NSRegularExpression(pattern: exercise.contractSuite)
        func matches(_ id: String) -> Bool {
            pattern.firstMatch(in: id, range: NSRange(id.startIndex..., in: id)) != nil
        }
        #expect(matches("Exercise4Tests.Exercise4ContractTests/contractKitClauses()"))
        #expect(!matches("Exercise4Tests.Exercise4Tests/finishesWhenCalledBack()"))
        #expect(!matches("Exercise14Tests.Exercise14ContractTests/contractKitClauses()"))
    }

    @Test("a crash names the test as the learner reads it, never its function's name")
    func noFunctionNames() throws {
        let crash = Fixture(name: "crash10index").judgement
        let text = explanation(crash, of: try repositoryExercise(10))
        #expect(text.contains("    “width 2, 8 jobs: at most 2 run at once, and all 8 finish”"))
        for test in crash.crash?.running ?? [] { #expect(!text.contains(test.name), "\(text)") }
        let pool = Fixture(name: "stuck10pool").judgement
        let stuck = explanation(pool, of: try repositoryExercise(10))
        for test in pool.timeOut?.unfinished ?? [] { #expect(!stuck.contains(test.name), "\(stuck)") }
    }

    @Test("list's columns line up whatever a status says")
    func listColumns() {
        let lines = columns([
            ["#", "Status", "Chapter", "File"], ["1", "✔ passes", "Sync only", "a.swift"],
            ["2", "… changed, not checked", "Managing the state by hand", "b.swift"],
        ])
        let starts = lines.map { line in
            line.distance(from: line.startIndex, to: line.firstRange(of: /File|\w\.swift/)!.lowerBound)
        }
        #expect(Set(starts).count == 1, "\(lines)")
        #expect(lines[2].hasPrefix("2  … changed, not checked  Managing"))
    }

    @Test("lanes: every job runs once, at most `width` at a time, each knowing its lane")
    func lanes() {
        let state = LaneState()
        runConcurrently(9, width: 2) { lane, index in
            state.enter(lane: lane, index: index)
            usleep(20_000)
            state.leave()
        }
        let (ran, most, lanes) = state.summary
        #expect(ran.sorted() == Array(0..<9))
        #expect(most <= 2)
        #expect(lanes.isSubset(of: [0, 1]))
    }
}

/// What the lanes did, under a lock.
private final class LaneState: @unchecked Sendable {
    // @unchecked Sendable: every field is touched only under `lock`.
    private let lock = NSLock()
    private var ran: [Int] = []
    private var running = 0
    private var most = 0
    private var lanes: Set<Int> = []

    func enter(lane: Int, index: Int) {
        lock.withLock {
            ran.append(index)
            running += 1
            most = max(most, running)
            lanes.insert(lane)
        }
    }

    func leave() { lock.withLock { running -= 1 } }

    var summary: ([Int], Int, Set<Int>) { lock.withLock { (ran, most, lanes) } }
}
