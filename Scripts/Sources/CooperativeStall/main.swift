// Measures what blocking the cooperative thread pool costs: how late a new Task and a
// trivial OperationQueue block start while some of the pool's threads are blocked, as
// `waitUntilFinished()` or a semaphore wait would block them in async code.
// Run it with Scripts/measure-stall (release build). Chapter 5's README quotes it.
import Dispatch
import Foundation

let cores = ProcessInfo.processInfo.activeProcessorCount
let rounds = 5
let giveUp = 3.0  // seconds; a start later than this is reported as "> 3 s"

func seconds(since start: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

/// Blocks `count` threads of the cooperative pool until the returned release function is called.
func blockCooperativeThreads(_ count: Int) -> () -> Void {
    let blocking = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    for _ in 0..<count {
        Task.detached {
            blocking.signal()
            blockThisThread(until: release)
        }
    }
    for _ in 0..<count { blocking.wait() }
    return { for _ in 0..<count { release.signal() } }
}

/// What `waitUntilFinished()` or a semaphore wait does to a thread of the pool when async code
/// calls it. Synchronous, because Apple's SDK refuses a blocking wait written in async code;
/// hiding it in a function is exactly how such a wait ends up on the pool anyway.
func blockThisThread(until release: DispatchSemaphore) {
    release.wait()
}

/// How many seconds after it was asked for `start` ran its work, or nil if not within `giveUp`.
func startLatency(_ start: (@escaping @Sendable () -> Void) -> Void) -> Double? {
    let ran = DispatchSemaphore(value: 0)
    let asked = DispatchTime.now()
    let latency = LockedLatency()
    start {
        latency.set(seconds(since: asked))
        ran.signal()
    }
    return ran.wait(timeout: .now() + giveUp) == .success ? latency.value : nil
}

final class LockedLatency: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Double?
    func set(_ value: Double) { lock.withLock { stored = value } }
    var value: Double? { lock.withLock { stored } }
}

func describe(_ latencies: [Double?]) -> String {
    let known = latencies.compactMap { $0 }
    guard known.count == latencies.count else {
        return "> \(giveUp) s in \(latencies.count - known.count) of \(latencies.count) rounds"
    }
    let sorted = known.sorted()
    return String(format: "median %.3f ms, worst %.3f ms", sorted[sorted.count / 2] * 1000, sorted.last! * 1000)
}

print("Cooperative thread pool stall, \(cores) cores, \(rounds) rounds per line")
print("blocked pool threads | a new Task starts after | an OperationQueue block starts after")
let queue = OperationQueue()
for blocked in [0, cores - 1, cores] where blocked >= 0 {
    var taskLatencies: [Double?] = []
    var queueLatencies: [Double?] = []
    for _ in 0..<rounds {
        let release = blockCooperativeThreads(blocked)
        queueLatencies.append(startLatency { work in queue.addOperation { work() } })
        taskLatencies.append(startLatency { work in Task.detached { work() } })
        release()
        Thread.sleep(forTimeInterval: 0.2)  // let the pool settle between rounds
    }
    print("\(blocked) of \(cores) | \(describe(taskLatencies)) | \(describe(queueLatencies))")
}
