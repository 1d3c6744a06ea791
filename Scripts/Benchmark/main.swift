// The package's benchmark: per-operation cost of each way to write an asynchronous
// operation, as a ratio to BlockOperation on the same kind of queue, measured in one run.
// Run it with Scripts/benchmark (release build). Usage: benchmark [operations] [rounds]
import AsyncOperations
import Dispatch
import Foundation
import ManualState
import Synchronization

let operationCount = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 20_000 : 20_000
let rounds = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 9 : 9

// Each operation's work is empty and finishes at once, so what is measured is the
// operation machinery: state storage, notifications, and the queue's bookkeeping.
final class PackageBaseOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func main() { finish() }
}

final class NSLockOperation: ManualStateOperation, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func main() { finish() }
}

final class BarrierOperation: BarrierQueueOperation, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func main() { finish() }
}

/// The package's base with its state in a `Mutex` instead of `Locked`, for comparison only:
/// `Locked.swift` says why the package does not use `Mutex`.
@available(macOS 15, iOS 18, *)
final class MutexStateOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is `state`, a Mutex.
    private let state = Mutex(0)  // 0 ready, 1 executing, 2 finished
    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { state.withLock { $0 == 1 } }
    override var isFinished: Bool { state.withLock { $0 == 2 } }

    override func start() {
        willChangeValue(forKey: "isExecuting")
        state.withLock { $0 = 1 }
        didChangeValue(forKey: "isExecuting")
        // main(): finish at once
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        state.withLock { $0 = 2 }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}

struct Variant {
    let name: String
    let make: () -> Operation
}

var variants = [
    Variant(name: "BlockOperation (baseline)") { BlockOperation {} },
    Variant(name: "AsyncOperation, NSLock (the package base)") { PackageBaseOperation() },
    Variant(name: "ManualStateOperation, NSLock (chapter 2)") { NSLockOperation() },
    Variant(name: "Concurrent queue + barrier (the articles)") { BarrierOperation() },
]
if #available(macOS 15, iOS 18, *) {
    variants.insert(Variant(name: "The same state in a Mutex (Synchronization)") { MutexStateOperation() }, at: 3)
}

/// Seconds to run `operationCount` operations made by `make` through a fresh queue.
func measure(_ make: () -> Operation) -> Double {
    let operations = (0..<operationCount).map { _ in make() }
    let queue = OperationQueue()
    let start = DispatchTime.now()
    queue.addOperations(operations, waitUntilFinished: true)
    return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

var samples = Array(repeating: [Double](), count: variants.count)
_ = measure(variants[0].make)  // warm-up: threads, caches
for _ in 0..<rounds {
    for (index, variant) in variants.enumerated() {  // interleaved, so drift hits all alike
        samples[index].append(measure(variant.make))
    }
}

let baseline = median(samples[0])
print(
    "\(operationCount) operations per round, \(rounds) rounds, median per variant, on \(ProcessInfo.processInfo.activeProcessorCount) cores"
)
print("")
print("variant                                        µs/op   ratio to BlockOperation")
for (index, variant) in variants.enumerated() {
    let seconds = median(samples[index])
    let microseconds = seconds / Double(operationCount) * 1e6
    print(
        variant.name.padding(toLength: 45, withPad: " ", startingAt: 0),
        String(format: "%6.2f", microseconds),
        String(format: "  %.2f×", seconds / baseline))
}
