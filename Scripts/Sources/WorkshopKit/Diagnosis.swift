/// How a check confirms a pass: the tests once more, or once more under ThreadSanitizer.
public enum Confirmation: String, Sendable {
    case again
    case raceDetector
}

#if os(macOS) || os(Linux)
    import Foundation

    /// Runs `request` and judges it; when the tests crashed or ran out of time with several
    /// tests running (Swift Testing runs them in parallel), runs those tests again, one at a
    /// time, to name the one it happens in and to tell whether it happens alone.
    public func runAndJudge(
        _ request: TestRequest, limits: Limits, observer: RunObserver, diagnosing: (Int) -> Void = { _ in }
    ) throws -> (judgement: Judgement, observation: RunObservation) {
        let observation = try runTests(request, limits: limits, observer: observer)
        var judgement = Judgement(observation)
        guard !observation.interrupted else { return (judgement, observation) }
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
        guard !second.interrupted else { return (judgement, observation) }
        judgement.learn(fromRunAlone: Judgement(second))
        return (judgement, observation)
    }
#endif

#if os(macOS) || os(Linux)

    /// A check: the exercise's tests (run again one at a time when they crash or hang, to
    /// name where); when they pass, a second run confirms it — under ThreadSanitizer in
    /// `raceScratch` for an exercise about shared state, else the same tests again. A pass
    /// counts only when both pass: a wrong answer that passes now and then must pass twice in a
    /// row, and a race that the tests' timing missed is reported by the detector.
    public func runCheck(
        _ request: TestRequest, raceScratch: URL?, limits: Limits, observer: RunObserver,
        diagnosing: (Int) -> Void = { _ in }, confirming: (Confirmation) -> Void = { _ in },
        confirmationObserver: RunObserver? = nil
    ) throws -> (judgement: Judgement, observation: RunObservation) {
        let first = try runAndJudge(request, limits: limits, observer: observer, diagnosing: diagnosing)
        guard !first.observation.interrupted, first.judgement.verdict == .passes else { return first }
        var again = request
        let confirmation: Confirmation
        var againLimits = limits
        if let raceScratch {
            confirmation = .raceDetector
            again.threadSanitizer = true
            again.scratch = raceScratch
            again.skipBuild = false
            again.folder = request.folder.appendingPathComponent("race-detector")
            // Everything runs several times slower under ThreadSanitizer; the tests' own bounds
            // stretch four times.
            againLimits.tests = limits.tests * 3
        } else {
            confirmation = .again
            again.skipBuild = true
            again.folder = request.folder.appendingPathComponent("again")
        }
        confirming(confirmation)
        var second = try runAndJudge(
            again, limits: againLimits, observer: confirmationObserver ?? observer, diagnosing: diagnosing)
        guard !second.observation.interrupted, second.judgement.verdict != .passes else {
            if second.observation.interrupted { return second }
            var passed = first.judgement
            passed.confirmedBy = confirmation
            return (passed, first.observation)
        }
        second.judgement.failedConfirmation = confirmation
        return second
    }
#endif
