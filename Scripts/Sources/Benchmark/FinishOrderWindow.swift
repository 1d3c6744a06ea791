// Chapter 2's unforced window. `AsyncAwaitPost`'s finish() writes `isFinished = true` before
// `isExecuting = false`, and announcing "isFinished" starts the dependents at once: a dependent
// that reads both flags before the second write sees an operation that is finished and still
// executing. FinishOrderTests holds finish() between its two writes to make that certain; this
// counts how often it happens unforced, as the post's code runs: each operation finishes on a
// global queue, its dependent (a BlockOperation) reads its flags when it runs.
import AsyncOperations
import Dispatch
import Foundation
import ManualState

/// The post's base with a `main()` that finishes from another thread, as callback work does.
final class FinishingElsewhere: AsyncAwaitPost.AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func main() {
        DispatchQueue.global().async { self.finish() }
    }
}

/// One batch: `count` operations, each with a dependent that records what it saw, on one queue
/// of the default width. Returns how many dependents saw `isFinished` and `isExecuting` both
/// true. (Batches, not one queue of 20,000: Linux's queue walks its whole list of waiting
/// operations each time one finishes, so a long list costs time quadratic in its length.)
func finishOrderBatch(count: Int) -> Int {
    let queue = OperationQueue()
    let seenBoth = Locked(0)
    var operations: [Operation] = []
    for _ in 0..<count {
        let upstream = FinishingElsewhere()
        let dependent = BlockOperation {
            // The dependent runs only once isFinished is true; the question is whether
            // isExecuting has been cleared by then.
            if upstream.isFinished && upstream.isExecuting { seenBoth.withLock { $0 += 1 } }
        }
        dependent.addDependency(upstream)
        operations += [upstream, dependent]
    }
    queue.addOperations(operations, waitUntilFinished: true)
    return seenBoth.withLock { $0 }
}

/// The load average over the last minute, as the system reports it (nil if it does not).
func loadAverage() -> Double? {
    var loads = [0.0, 0.0, 0.0]
    return getloadavg(&loads, 3) > 0 ? loads[0] : nil
}

/// `benchmark finish-order [rounds]`: `rounds` rounds of 20,000 operations and their dependents
/// (20 batches of 1,000), each round printed with the load average before it, then the spread.
func finishOrderSection(rounds: Int) {
    let (batch, batches) = (1_000, 20)
    let count = batch * batches
    print("chapter 2: AsyncAwaitPost's finish() order, unforced; \(count) operations per round, \(rounds) rounds")
    print("round  load  dependents that saw isFinished and isExecuting both true")
    var counts: [Int] = []
    for round in 1...rounds {
        let load = loadAverage().map { String(format: "%5.1f", $0) } ?? "    ?"
        let seen = (0..<batches).map { _ in finishOrderBatch(count: batch) }.reduce(0, +)
        counts.append(seen)
        print(String(format: "%5d", round), load, String(format: "%6d", seen))
        fflush(nil)  // each round as it ends, also when the output goes to a pipe
    }
    let sorted = counts.sorted()
    print(
        "per \(count): median \(sorted[sorted.count / 2]), fewest \(sorted.first!), most \(sorted.last!); "
            + "\(counts.reduce(0, +)) of \(count * rounds) in all")
}
