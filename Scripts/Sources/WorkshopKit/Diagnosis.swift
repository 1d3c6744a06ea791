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
