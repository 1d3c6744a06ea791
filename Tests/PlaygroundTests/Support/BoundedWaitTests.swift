import Foundation
import TestSupport
import Testing

#if os(macOS) || os(Linux)
    /// The tests' waits for what must happen (`Flag.wait`, and all that wait with it) end at their
    /// bound only once the process has gone quiet (`ProcessActivity`); windows for what must not
    /// happen (`Flag.staysLowered`) end on time. Each scene runs in a child process, whose only
    /// work is the scene's, so that the rest of the suite does not keep it busy.
    @Suite("Test support — a bound decides only for a broken version")
    struct BoundedWaitTests {
        @Test("a wait for what never comes, in a quiet process, ends soon after its bound", .exitTest)
        func quietProcessEndsTheWait() async {
            await #expect(processExitsWith: .success) {
                let bound = 0.5 * boundStretch
                let start = ContinuousClock.now
                guard await !Flag().wait(seconds: 0.5) else { exit(1) }
                let waited = Self.seconds(since: start)
                // The bound, then a second of quiet; the cap would be 12 times the bound.
                exit(waited >= bound && waited < bound + ProcessActivity.quietSeconds + 3 * boundStretch ? 0 : 2)
            }
        }

        @Test("while the process works, a wait goes on past its bound, and ends when the flag is raised", .exitTest)
        func workingProcessKeepsTheWaitGoing() async {
            await #expect(processExitsWith: .success) {
                let flag = Flag()
                Thread {
                    Self.work(for: (0.5 + ProcessActivity.quietSeconds + 1) * boundStretch)
                    flag.raise()
                }.start()
                exit(await flag.wait(seconds: 0.5) ? 0 : 1)
            }
        }

        #if os(Linux)
            @Test("while a child process works, a wait goes on past its bound (Linux)", .exitTest)
            func workingChildKeepsTheWaitGoing() async {
                await #expect(processExitsWith: .success) {
                    // The child works a tenth of the time (10 ms in every 100 ms: more than the
                    // clock tick of 10 ms that /proc counts in) until it is killed; the process
                    // itself stays quiet until the flag is raised, 1.5 s after the bound.
                    let count = "i=0; while [ $i -lt 9000 ]; do i=$((i+1)); done"
                    let child = Process()
                    child.executableURL = URL(fileURLWithPath: "/bin/sh")
                    child.arguments = ["-c", "while true; do \(count); sleep 0.09; done"]
                    try? child.run()
                    let flag = Flag()
                    Thread {
                        Thread.sleep(forTimeInterval: (0.5 + ProcessActivity.quietSeconds + 1) * boundStretch)
                        flag.raise()
                    }.start()
                    let raised = await flag.wait(seconds: 0.5)
                    kill(child.processIdentifier, SIGKILL)  // SIGTERM may be blocked (ChildProcess.terminate)
                    exit(raised ? 0 : 1)
                }
            }
        #endif

        @Test(
            "a process that never stops working: the wait ends at its cap, and a window ends on time", .exitTest)
        func capAndWindow() async {
            await #expect(processExitsWith: .success) {
                Thread { Self.work(for: .infinity) }.start()
                let start = ContinuousClock.now
                guard await Flag().staysLowered(for: 0.2) else { exit(1) }
                guard Self.seconds(since: start) < 0.2 * boundStretch + 1 else { exit(2) }
                let waitStart = ContinuousClock.now
                guard await !Flag().wait(seconds: 0.2) else { exit(3) }
                let cap = 0.2 * boundStretch * ProcessActivity.capFactor
                let waited = Self.seconds(since: waitStart)
                exit(waited >= cap - 0.1 && waited < cap + 3 * boundStretch ? 0 : 4)
            }
        }

        static func seconds(since start: ContinuousClock.Instant) -> Double {
            let elapsed = ContinuousClock.now - start
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }

        /// Works a twentieth of the time, in slices of 1 ms, for `seconds`.
        static func work(for seconds: Double) {
            let end = ContinuousClock.now + .seconds(min(seconds, 1e6))
            while ContinuousClock.now < end {
                let slice = ContinuousClock.now + .milliseconds(1)
                while ContinuousClock.now < slice {}
                usleep(19_000)
            }
        }
    }
#endif
