import Foundation

#if os(macOS) || os(Linux)
    /// The status an exit test's child process ends with when its watchdog fired: the scene
    /// hung (a deadlock, a wait that never ended).
    let watchdogFired: Int32 = 86

    /// For an exit test's child process: ends the process with `watchdogFired` after `seconds`,
    /// so that a scene that hangs fails its one test instead of hanging the run.
    func startWatchdog(seconds: Double) {
        Thread {
            Thread.sleep(forTimeInterval: seconds)
            exit(watchdogFired)
        }.start()
    }
#endif
