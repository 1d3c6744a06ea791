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
            Issue.record("two children never started: start the first `width` before waiting")
            return
        }
        // A correct limit always waits out this short deadline; without one a third starts at once.
        let thirdStartedEarly = await threeStarted.waitForTarget(seconds: 0.1)
        open.raise()
        #expect(!thirdStartedEarly, "a third child started while two were still running: no width limit")
        guard await finished.wait(seconds: 5) else {
            Issue.record("limitedMap never returned: does each finished child start the next element?")
            return
        }
        #expect(gauge.most <= 2, "\(gauge.most) children ran at once; the limit is 2")
        #expect(gauge.finished == 8, "\(gauge.finished) of 8 elements ran")
    }

    @Test("results come back in the order of the input, not the order they finished")
    func inputOrder() async throws {
        let othersDone = Counter(target: 9)  // element 0 finishes last
        let values = try await limitedMap(Array(0..<10), width: 3) { element in
            if element == 0 { _ = await othersDone.waitForTarget(seconds: 5) } else { othersDone.increment() }
            return element * 2
        }
        #expect(values == (0..<10).map { $0 * 2 }, "results must be in the order of the elements")
    }

    @Test("a width larger than the count, and an empty input")
    func edges() async throws {
        #expect(try await limitedMap([1, 2, 3], width: 10) { $0 + 1 } == [2, 3, 4])
        #expect(try await limitedMap([Int](), width: 2) { $0 }.isEmpty)
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
            Issue.record("the error was not rethrown")
        } catch {
            #expect(error is Failed)
        }
        #expect(
            started.value == 3, "\(started.value) elements started; with width 1, the error at the third stops the rest"
        )
    }
}
