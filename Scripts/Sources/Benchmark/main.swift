// The package's benchmark: per-operation cost of each way to write an asynchronous
// operation, as a ratio to BlockOperation on the same kind of queue, measured in one run;
// then chapter 8's coordinators and their async/await (task group) twins against an
// OperationQueue doing the same work; chapter 5's awaiting, chapter 10's structured
// counterparts; and last, how often chapter 4's bug 1 strikes the article's operation.
// Run it with Scripts/benchmark (release build). Usage: benchmark [operations] [rounds], or
// benchmark hops [rounds] for chapter 4's section alone, benchmark finish-order [rounds] for
// chapter 2's unforced window (FinishOrderWindow.swift).
import AsyncOperations
import CompletionOperations
import Coordinators
import Dispatch
import Foundation
import ManualState
import StructuredConcurrency
import Synchronization
import TaskOperations

// Many short rounds rather than a few long ones: on a shared 2-core machine a single round
// can be 30 % off when another process takes a core, and the median of many rounds shrugs
// that off. With 9 rounds of 20,000 operations, the base's ratio moved between 0.93× and
// 1.08× from run to run; with 41 rounds of 5,000 it stayed within 0.91–0.93×.
// `benchmark hops [rounds]` runs only chapter 4's section (the last one), with more rounds.
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "hops" {
    hopRaceSection(rounds: CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 11 : 11)
    exit(0)
}
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "finish-order" {
    finishOrderSection(rounds: CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 8 : 8)
    exit(0)
}

let operationCount = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 5_000 : 5_000
let rounds = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 41 : 41

// Each operation's work is empty and finishes at once, so what is measured is the
// operation machinery: state storage, notifications, and the queue's bookkeeping.
// The posts' base operation (chapter 2), as "Asynchronous Operations with Async/Await" writes
// it: ConcurrentSolutionsPost's is the same but prints "Starting" from every start().
final class BarrierOperation: AsyncAwaitPost.AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func main() { finish() }
}

final class NSLockOperation: ManualStateOperation, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func main() { finish() }
}

final class PackageBaseOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func main() { finish() }
}

/// Chapter 2's state in a `Mutex` instead of an `NSLock`, for comparison only:
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
    Variant(name: "Concurrent queue + barrier (the articles)") { BarrierOperation() },
    Variant(name: "NSLock (chapter 2's ManualStateOperation)") { NSLockOperation() },
    Variant(name: "AsyncOperation (the package's base, NSLock)") { PackageBaseOperation() },
    // The same base, compiled without the recorder of the chapters' pictures (see WithoutRecording.swift).
    Variant(name: "  the same, compiled without the recorder", make: makeBaseWithoutRecorder),
    // Its closure runs in a Task: one hop to Swift's cooperative pool per operation.
    Variant(name: "TaskOperation (chapter 5), empty closure") { TaskOperation {} },
]
if #available(macOS 15, iOS 18, *) {
    variants.insert(Variant(name: "Mutex (Synchronization), same state") { MutexStateOperation() }, at: 3)
}
let packageBase = variants.firstIndex { $0.name.hasPrefix("AsyncOperation") }!
let baseWithoutRecorder = variants.firstIndex { $0.name.hasSuffix("without the recorder") }!

/// Seconds to run `operationCount` operations made by `make` through a fresh queue.
func measure(_ make: () -> Operation) -> Double {
    let operations = (0..<operationCount).map { _ in make() }
    let queue = OperationQueue()
    let start = DispatchTime.now()
    queue.addOperations(operations, waitUntilFinished: true)
    return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

/// The value below which `fraction` of `values` lie (nearest rank).
func quantile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

func median(_ values: [Double]) -> Double { quantile(values, 0.5) }

var samples = Array(repeating: [Double](), count: variants.count)
for variant in variants { _ = measure(variant.make) }  // warm-up: threads, caches, the task pool
for round in 0..<rounds {
    // Interleaved, so drift hits all alike; every other round backwards, so that no variant
    // always runs right after the same one (the base and its control without the recorder are
    // neighbours).
    let order = round.isMultiple(of: 2) ? Array(variants.indices) : variants.indices.reversed()
    for index in order {
        samples[index].append(measure(variants[index].make))
    }
}

// Each round's ratio to the baseline: both were measured moments apart.
let ratios = samples.map { variantSamples in zip(variantSamples, samples[0]).map { $0 / $1 } }

print(
    "\(operationCount) operations per round, \(rounds) rounds, on \(ProcessInfo.processInfo.activeProcessorCount) cores"
)
print("µs/op: median time per operation. ratio: median of the rounds' ratios to BlockOperation,")
print("and the range of the middle half of those ratios (a single round can be far off).")
print("")
print("variant                                        µs/op   ratio   (middle half)")
for (index, variant) in variants.enumerated() {
    print(
        variant.name.padding(toLength: 45, withPad: " ", startingAt: 0),
        String(format: "%6.2f", median(samples[index]) / Double(operationCount) * 1e6),
        String(
            format: "  %.2f×  (%.2f–%.2f)", median(ratios[index]), quantile(ratios[index], 0.25),
            quantile(ratios[index], 0.75)))
}
print("")
print(
    String(
        format: "The package's base costs %.2f× a BlockOperation (the bar: at most about 1.1×).",
        median(ratios[packageBase])))
// Round by round, the base as shipped (the recorder compiled in, and off) against the same code
// compiled without it.
let recorderOff = zip(samples[packageBase], samples[baseWithoutRecorder]).map { $0 / $1 }
print(
    String(
        format: "The recorder, compiled in and off, costs the base %.2f× the same base without it "
            + "(middle half %.2f–%.2f).",
        median(recorderOff), quantile(recorderOff, 0.25), quantile(recorderOff, 0.75)))

// cancel() of pending operations, the base against BlockOperation: `operationCount`
// operations without dependencies wait in a suspended queue. Timed: the cancels alone, and the
// cancels plus the queue, resumed, finishing them without their work.
func measureCancel(_ make: () -> Operation) -> (cancels: Double, throughTheQueue: Double) {
    let queue = OperationQueue()
    queue.isSuspended = true
    let operations = (0..<operationCount).map { _ in make() }
    queue.addOperations(operations, waitUntilFinished: false)
    let start = DispatchTime.now()
    for operation in operations { operation.cancel() }
    let cancelled = DispatchTime.now()
    queue.isSuspended = false
    queue.waitUntilAllOperationsAreFinished()
    let drained = DispatchTime.now()
    return (
        Double(cancelled.uptimeNanoseconds - start.uptimeNanoseconds) / 1e9,
        Double(drained.uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    )
}

var cancelSamples: (block: [(Double, Double)], base: [(Double, Double)]) = ([], [])
for _ in 0..<rounds {  // interleaved, as above
    cancelSamples.block.append(measureCancel { BlockOperation {} })
    cancelSamples.base.append(measureCancel { PackageBaseOperation() })
}
print("")
print("cancel() of a pending operation (chapter 3)    µs/op   ratio to BlockOperation (middle half)")
for (name, part) in [("cancel() alone", 0), ("cancelled, then run", 1)] {
    func pick(_ sample: (Double, Double)) -> Double { part == 0 ? sample.0 : sample.1 }
    let base = cancelSamples.base.map(pick)
    let ratios = zip(base, cancelSamples.block.map(pick)).map { $0 / $1 }
    print(
        "AsyncOperation, \(name)".padding(toLength: 45, withPad: " ", startingAt: 0),
        String(format: "%6.2f", median(base) / Double(operationCount) * 1e6),
        String(
            format: "  %.2f×  (%.2f–%.2f)", median(ratios), quantile(ratios, 0.25), quantile(ratios, 0.75)))
}

// Chapter 8: the same work, `operationCount` no-op operations, run by an OperationQueue, by
// the callback coordinators (no queue at all) and by their async/await twins. "At once": the
// operation completes on the caller's thread, so only the coordination is measured. "On a
// queue" / Task.yield(): it completes after one hop to another thread or task, as real
// asynchronous work would; an OperationQueue makes that hop for every operation anyway.
struct NoOp: CoordinatedOperation {
    let hop: Bool

    func perform(completion: @escaping @Sendable ((any Error)?) -> Void) {
        if hop {
            DispatchQueue.global().async { completion(nil) }
        } else {
            completion(nil)
        }
    }
}

struct AsyncNoOp: AsyncCoordinatedOperation {
    let hop: Bool

    func perform() async throws {
        if hop { await Task.yield() }
    }
}

/// Seconds for a queue with `maxConcurrentOperationCount` to run the operations as BlockOperations.
func measureQueue(maxConcurrentOperationCount: Int) -> Double {
    let operations = (0..<operationCount).map { _ in BlockOperation {} }
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = maxConcurrentOperationCount
    let start = DispatchTime.now()
    queue.addOperations(operations, waitUntilFinished: true)
    return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

/// Seconds for `coordinator` to run the operations and call its completion.
func measureCallbacks(_ coordinator: some Coordinator, hop: Bool) -> Double {
    let operations: [any CoordinatedOperation] = Array(repeating: NoOp(hop: hop), count: operationCount)
    let done = DispatchSemaphore(value: 0)
    let start = DispatchTime.now()
    coordinator.perform(operations: operations) { _ in done.signal() }
    done.wait()
    return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

/// Seconds for `coordinator` to run the operations, awaited in a detached task while the main
/// thread waits (a plain `Task` would need the main actor, whose thread is the one waiting).
func measureAsync(_ coordinator: some AsyncCoordinator, hop: Bool) -> Double {
    let operations: [any AsyncCoordinatedOperation] = Array(repeating: AsyncNoOp(hop: hop), count: operationCount)
    let done = DispatchSemaphore(value: 0)
    let start = DispatchTime.now()
    Task.detached {
        _ = await coordinator.perform(operations: operations)
        done.signal()
    }
    done.wait()
    return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

let coordinations: [(name: String, measure: () -> Double)] = [
    ("OperationQueue, BlockOperation (baseline)", { measureQueue(maxConcurrentOperationCount: -1) }),
    ("OperationQueue, one at a time", { measureQueue(maxConcurrentOperationCount: 1) }),
    ("SerialCoordinator, completes at once", { measureCallbacks(SerialCoordinator(), hop: false) }),
    ("ConcurrentCoordinator, completes at once", { measureCallbacks(ConcurrentCoordinator(), hop: false) }),
    ("AsyncSerialCoordinator, returns at once", { measureAsync(AsyncSerialCoordinator(), hop: false) }),
    ("AsyncConcurrentCoordinator, returns at once", { measureAsync(AsyncConcurrentCoordinator(), hop: false) }),
    ("SerialCoordinator, completes on a queue", { measureCallbacks(SerialCoordinator(), hop: true) }),
    ("ConcurrentCoordinator, completes on a queue", { measureCallbacks(ConcurrentCoordinator(), hop: true) }),
    ("AsyncSerialCoordinator, Task.yield()", { measureAsync(AsyncSerialCoordinator(), hop: true) }),
    ("AsyncConcurrentCoordinator, Task.yield()", { measureAsync(AsyncConcurrentCoordinator(), hop: true) }),
]

var coordinationSamples = Array(repeating: [Double](), count: coordinations.count)
for coordination in coordinations { _ = coordination.measure() }  // warm-up
for _ in 0..<rounds {
    for (index, coordination) in coordinations.enumerated() {  // interleaved, as above
        coordinationSamples[index].append(coordination.measure())
    }
}

let queueBaseline = median(coordinationSamples[0])
print("")
print("coordinating no-op operations (chapter 8)      µs/op   ratio to OperationQueue")
for (index, coordination) in coordinations.enumerated() {
    let seconds = median(coordinationSamples[index])
    print(
        coordination.name.padding(toLength: 45, withPad: " ", startingAt: 0),
        String(format: "%6.3f", seconds / Double(operationCount) * 1e6),
        String(format: "  %.2f×", seconds / queueBaseline))
}

// The async/await coordinators against their callback twins, round by round (both measured
// moments apart): what chapter 8's README compares.
print("")
print("async/await over callbacks (chapter 8)         ratio   (middle half)")
for (name, asyncIndex, callbackIndex) in [
    ("serially, operations complete at once", 4, 2), ("serially, one hop per operation", 8, 6),
    ("concurrently, operations complete at once", 5, 3), ("concurrently, one hop per operation", 9, 7),
] {
    let ratios = zip(coordinationSamples[asyncIndex], coordinationSamples[callbackIndex]).map { $0 / $1 }
    print(
        name.padding(toLength: 45, withPad: " ", startingAt: 0),
        String(format: "%6.2f×  (%.2f–%.2f)", median(ratios), quantile(ratios, 0.25), quantile(ratios, 0.75)))
}

// Chapter 5: awaiting operations must scale linearly. Two shapes, each at a small and a large
// size, as the cost per operation of the large size over that of the small one (1.00× means
// flat). Every round runs the same total number of operations at each size (for example 40
// runs of 1,000 and one run of 40,000), interleaved, and the ratio is the median of the
// rounds' ratios. The operations are empty BlockOperations on a fresh queue.
//  - `await queue.run(operations)`: one call awaits them all.
//  - `await operation.untilFinished()` from that many tasks at once: the operations wait in a
//    suspended queue until every task has begun its call, so all the awaits overlap.
// A first row measures the same operations run with `waitUntilFinished`, no awaiting: on Linux
// Foundation's own cost per operation grows with N too (1.6–2× from 1,000 to 40,000 on a
// 2-core machine), so the last line compares run(_:) with it, round by round: the awaiting's
// own share.

/// Runs `body` in a detached task and blocks this (main) thread until it returns; seconds taken.
func timeAsync(_ body: @escaping @Sendable () async -> Void) -> Double {
    let done = DispatchSemaphore(value: 0)
    let start = DispatchTime.now()
    Task.detached {
        await body()
        done.signal()
    }
    done.wait()
    return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

/// Seconds for one `run` of `count` operations.
func measureRun(count: Int) -> Double {
    let operations = (0..<count).map { _ in BlockOperation {} }
    let queue = OperationQueue()
    return timeAsync { await queue.run(operations) }
}

/// Seconds for `count` tasks that each await one operation's `untilFinished()` at the same time.
func measureConcurrentAwaits(count: Int) -> Double {
    let operations = (0..<count).map { _ in BlockOperation {} }
    let queue = OperationQueue()
    queue.isSuspended = true
    for operation in operations { queue.addOperation(operation) }
    let begun = Locked(0)
    return timeAsync {
        await withTaskGroup(of: Void.self) { group in
            for operation in operations {
                group.addTask {
                    let all = begun.withLock { begun in
                        begun += 1
                        return begun == count
                    }
                    if all { queue.isSuspended = false }
                    await operation.untilFinished()
                }
            }
        }
    }
}

struct Scaling {
    let name: String
    let small: Int
    let large: Int
    let measure: (Int) -> Double
}

/// Seconds for a queue to run `count` operations while this thread blocks: Foundation's own
/// cost at that size, without any awaiting.
func measureBlocking(count: Int) -> Double {
    let operations = (0..<count).map { _ in BlockOperation {} }
    let queue = OperationQueue()
    let start = DispatchTime.now()
    queue.addOperations(operations, waitUntilFinished: true)
    return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

let scalings = [
    Scaling(name: "(no awaiting: waitUntilFinished)", small: 1_000, large: 40_000, measure: measureBlocking),
    Scaling(name: "one run(_:) of N operations", small: 1_000, large: 40_000, measure: measureRun),
    Scaling(name: "N concurrent untilFinished()", small: 500, large: 5_000, measure: measureConcurrentAwaits),
]
let scalingRounds = 7
print("")
print("awaiting (chapter 5): cost per operation at N = large vs N = small, \(scalingRounds) rounds")
print("shape                              small  µs/op    large  µs/op   large/small (middle half)")
var smallSamples = Array(repeating: [Double](), count: scalings.count)  // seconds per operation
var largeSamples = Array(repeating: [Double](), count: scalings.count)
for scaling in scalings { _ = scaling.measure(scaling.small) }  // warm-up
for _ in 0..<scalingRounds {
    for (index, scaling) in scalings.enumerated() {  // interleaved, as above
        var small = 0.0
        for _ in 0..<(scaling.large / scaling.small) { small += scaling.measure(scaling.small) }
        smallSamples[index].append(small / Double(scaling.large))
        largeSamples[index].append(scaling.measure(scaling.large) / Double(scaling.large))
    }
}
for (index, scaling) in scalings.enumerated() {
    let ratios = zip(largeSamples[index], smallSamples[index]).map { $0 / $1 }
    print(
        scaling.name.padding(toLength: 32, withPad: " ", startingAt: 0),
        String(format: "%7d %6.2f", scaling.small, median(smallSamples[index]) * 1e6),
        String(format: "%8d %6.2f", scaling.large, median(largeSamples[index]) * 1e6),
        String(
            format: "   %.2f×  (%.2f–%.2f)", median(ratios), quantile(ratios, 0.25), quantile(ratios, 0.75)))
}
// The awaiting's own share: run(_:) against waitUntilFinished on the same operations, per round.
let runOverBlocking = (
    small: zip(smallSamples[1], smallSamples[0]).map { $0 / $1 },
    large: zip(largeSamples[1], largeSamples[0]).map { $0 / $1 }
)
print(
    String(
        format: "run(_:) costs %.2f× waitUntilFinished at %d operations, %.2f× at %d",
        median(runOverBlocking.small), scalings[1].small, median(runOverBlocking.large), scalings[1].large))

// Chapter 10: an OperationQueue's features against their structured-concurrency counterparts,
// on the same `operationCount` empty jobs, as the ratio of each pair measured round by round.
//  - width: an OperationQueue with maxConcurrentOperationCount = 4 against withWidthLimit(4).
//  - FIFO: a serial OperationQueue against chapter 10's FIFOQueue (enqueue all, await the last).
func structuredConcurrencyRows() {
    let width = 4
    func queue(width: Int) -> Double { measureQueue(maxConcurrentOperationCount: width) }
    func group() -> Double {
        let jobs = Array(0..<operationCount)
        return timeAsync { _ = try? await withWidthLimit(width, over: jobs) { $0 } }
    }
    func fifo() -> Double {
        timeAsync {
            let fifo = FIFOQueue()
            for _ in 1..<operationCount { fifo.enqueue {} }
            await fifo.value {}
        }
    }
    let pairs: [(name: String, queue: () -> Double, structured: () -> Double)] = [
        ("width \(width): withWidthLimit vs OperationQueue", { queue(width: width) }, group),
        ("serial: FIFOQueue vs OperationQueue (width 1)", { queue(width: 1) }, fifo),
    ]
    var samples = Array(repeating: (queue: [Double](), structured: [Double]()), count: pairs.count)
    for pair in pairs { _ = (pair.queue(), pair.structured()) }  // warm-up
    for _ in 0..<rounds {
        for (index, pair) in pairs.enumerated() {  // interleaved, as above
            samples[index].queue.append(pair.queue())
            samples[index].structured.append(pair.structured())
        }
    }
    print("")
    print("chapter 10, structured vs OperationQueue      queue µs/op  structured µs/op  ratio (middle half)")
    for (index, pair) in pairs.enumerated() {
        let ratios = zip(samples[index].structured, samples[index].queue).map { $0 / $1 }
        print(
            pair.name.padding(toLength: 45, withPad: " ", startingAt: 0),
            String(format: "%8.3f", median(samples[index].queue) / Double(operationCount) * 1e6),
            String(format: "%15.3f", median(samples[index].structured) / Double(operationCount) * 1e6),
            String(
                format: "     %.2f×  (%.2f–%.2f)", median(ratios), quantile(ratios, 0.25), quantile(ratios, 0.75)))
    }
}
structuredConcurrencyRows()

// Chapter 4: the article's CompletionOperation hops to DispatchQueue.main twice — to run its
// block, and from the block's completion to set `.finished` — while its base's start() sets
// `.executing` right after main() has scheduled the first hop. Bug 1 (finished, then executing
// for ever) strikes only when both hops run before that line: a race. Counted here as the
// article runs it (a queue of width 1), with blocks that complete at once (the fastest work,
// the race's best chance) and the main thread serving the main queue through RunLoop.main.
func hopRaceRound(count: Int) -> (caught: Int, stalled: Bool) {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let operations = (0..<count).map { _ in EverythingToKnowPost.CompletionOperation { completion in completion?() } }
    queue.addOperations(operations, waitUntilFinished: false)
    let deadline = Date() + 5  // a round takes well under a second unless the queue stalled
    while queue.operationCount > 0, Date() < deadline {
        _ = RunLoop.main.run(mode: .default, before: Date() + 0.01)
    }
    let stalled = queue.operationCount > 0
    // An operation that bug 1 caught ran its work: its state went to .finished, then back to
    // .executing. (One the queue never started is still .ready.) Between those two writes
    // isFinished is true: if the queue read it then, it learned that the operation finished
    // and went on. If its reads all came after the .executing write, it never learned: the
    // serial queue stalls behind the operation (chapter 4's EverythingToKnowPostStallTests make each case
    // certain).
    return (operations.filter { $0.state == .executing }.count, stalled)
}

/// Chapter 4's section: `rounds` rounds of 2,000 of the article's operations.
func hopRaceSection(rounds hopRounds: Int) {
    let hopCount = 2_000
    let hopResults = (0..<hopRounds).map { _ in hopRaceRound(count: hopCount) }
    let caught = hopResults.map(\.caught).sorted()
    print(
        "chapter 4: the article's CompletionOperation (two main-queue hops), \(hopCount) per round, \(hopRounds) rounds"
    )
    print(
        "operations that bug 1 left \"executing\" per round: median \(caught[caught.count / 2]), "
            + "fewest \(caught.first!), most \(caught.last!), \(caught.reduce(0, +)) of \(hopCount * hopRounds) in all"
            + "; queues that stalled: \(hopResults.filter(\.stalled).count) of \(hopRounds) (given up after 5 s)")
}

print("")
hopRaceSection(rounds: 11)
