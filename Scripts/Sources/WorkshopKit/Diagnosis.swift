/// How a check confirms a pass: the tests once more, or once more under ThreadSanitizer.
public enum Confirmation: String, Sendable {
    case again
    case raceDetector
}

#if os(macOS) || os(Linux)
    import AsyncOperations  // Locked, the lock chapter 3's base comes with
    import Foundation

    /// Runs `request` and judges it; when the tests crashed or ran out of time with several
    /// tests running (Swift Testing runs them in parallel), runs those tests again, one at a
    /// time, to name the one it happens in and to tell whether it happens alone.
    public func runAndJudge(
        _ request: TestRequest, limits: Limits, observer: RunObserver, diagnose: Bool = true,
        diagnosing: (Int) -> Void = { _ in }
    ) throws -> (judgement: Judgement, observation: RunObservation) {
        let observation = try runTests(request, limits: limits, observer: observer)
        var judgement = Judgement(observation)
        guard diagnose, !observation.interrupted, observation.endedFromOutside == nil else {
            return (judgement, observation)
        }
        let suspects = judgement.suspects
        guard suspects.count > 1 else { return (judgement, observation) }

        diagnosing(suspects.count)
        var again = request
        again.skipBuild = true
        again.serial = true
        again.tests = suspects.map(\.id)
        again.folder = request.folder.appendingPathComponent("one-at-a-time")
        // One test at a time: a test that neither ends nor records anything for `quiet`
        // seconds hangs (each of the exercises' waits is bounded well below that).
        let alone = Limits(build: limits.build, tests: limits.tests + 10, quiet: 10)
        var quiet = RunObserver()
        quiet.shouldStop = observer.shouldStop
        let second = try runTests(again, limits: alone, observer: quiet)
        guard !second.interrupted, second.endedFromOutside == nil else { return (judgement, observation) }
        judgement.learn(fromRunAlone: Judgement(second))
        return (judgement, observation)
    }

    /// A check: the exercise's tests, without the suites in `request.skip` (run again one at a
    /// time when they crash or hang, to name where); when they pass, a second run confirms it,
    /// every suite included — under ThreadSanitizer in `raceScratch` for an exercise about
    /// shared state, else the same tests again. A pass counts only when both pass: a wrong
    /// answer that passes now and then must pass twice in a row, and a race that the tests'
    /// timing missed is reported by the detector.
    ///
    /// With `overlapping`, the race detector's run (its own build folder) starts at once,
    /// beside the first, and is stopped if the first fails: a right answer waits for the longer
    /// of the two runs rather than for both. Its tests are shown (`confirmationObserver`) only
    /// once the first run has passed.
    public func runCheck(
        _ request: TestRequest, raceScratch: URL?, limits: Limits, observer: RunObserver, overlapping: Bool = false,
        diagnose: Bool = true, diagnosing: (Int) -> Void = { _ in }, confirming: (Confirmation) -> Void = { _ in },
        confirmationObserver: RunObserver? = nil
    ) throws -> (judgement: Judgement, observation: RunObservation) {
        var again = request
        again.skip = []
        let confirmation: Confirmation
        var againLimits = limits
        if let raceScratch {
            confirmation = .raceDetector
            again.threadSanitizer = true
            again.scratch = raceScratch
            again.folder = request.folder.appendingPathComponent("race-detector")
            // Everything runs several times slower under ThreadSanitizer.
            againLimits.tests = limits.tests * 3
        } else {
            confirmation = .again
            again.skipBuild = true
            again.folder = request.folder.appendingPathComponent("again")
        }
        let shown = confirmationObserver ?? observer
        var early: Background<Result<(judgement: Judgement, observation: RunObservation), any Error>>?
        let stopEarly = Locked(false)
        let heldBack = Locked<[RunLog.Happening]>([])
        if overlapping, confirmation == .raceDetector {
            var background = RunObserver()
            background.started = shown.started
            background.happened = { happening in heldBack.withLock { $0.append(happening) } }
            background.shouldStop = { stopEarly.withLock { $0 } }
            early = Background { [again, againLimits] in
                Result { try runAndJudge(again, limits: againLimits, observer: background) }
            }
        }
        let first = try runAndJudge(
            request, limits: limits, observer: observer, diagnose: diagnose, diagnosing: diagnosing)
        guard !first.observation.interrupted, first.observation.endedFromOutside == nil,
            first.judgement.verdict == .passes
        else {
            stopEarly.withLock { $0 = true }
            _ = early?.wait()
            return first
        }
        confirming(confirmation)
        var second: (judgement: Judgement, observation: RunObservation)
        if let early {
            // Shows what the run held back, then what it sees, until it ends.
            var outcome: Result<(judgement: Judgement, observation: RunObservation), any Error>?
            while outcome == nil {
                outcome = early.result
                for happening in heldBack.withLock({ taken in
                    defer { taken = [] }
                    return taken
                }) {
                    shown.happened(happening)
                }
                if outcome == nil, shown.shouldStop() { stopEarly.withLock { $0 = true } }
                if outcome == nil { usleep(50_000) }
            }
            second = try outcome!.get()
        } else {
            second = try runAndJudge(
                again, limits: againLimits, observer: shown, diagnose: diagnose, diagnosing: diagnosing)
        }
        guard !second.observation.interrupted, second.observation.endedFromOutside == nil else { return second }
        guard second.judgement.verdict == .passes else {
            second.judgement.failedConfirmation = confirmation
            return second
        }
        var passed = first.judgement
        passed.confirmedBy = confirmation
        passed.confirmationCount = second.judgement.passedCount
        passed.mutexReportsSetAside = second.observation.mutexReportsSetAside
        return (passed, first.observation)
    }

    /// Work that runs on a thread of its own (the runs poll their processes, blocking it);
    /// `result` is nil until it has returned.
    public final class Background<Value: Sendable>: @unchecked Sendable {
        // @unchecked Sendable: `work` is called once, on the thread that runs it; the result
        // is written and read under a lock.
        private let work: () -> Value
        private let outcome = Locked<Value?>(nil)

        public init(_ work: @escaping () -> Value) {
            self.work = work
            Thread { [self] in
                let value = self.work()
                outcome.withLock { $0 = value }
            }.start()
        }

        public var result: Value? { outcome.withLock { $0 } }

        /// Waits (polling) until the work has returned.
        public func wait() -> Value {
            while true {
                if let result { return result }
                usleep(20_000)
            }
        }
    }

    /// Runs `job` for each index below `count` on `width` threads (lanes), each taking the next
    /// index none has taken; returns when all have returned. `job` learns its lane too.
    public func runConcurrently(_ count: Int, width: Int, _ job: @escaping (_ lane: Int, _ index: Int) -> Void) {
        let next = Locked(0)
        let lanes = (0..<max(1, min(width, count))).map { lane in
            Background {
                while let index = next.withLock({ index -> Int? in
                    defer { index += 1 }
                    return index < count ? index : nil
                }) {
                    job(lane, index)
                }
                return true
            }
        }
        for lane in lanes { _ = lane.wait() }
    }
#endif
