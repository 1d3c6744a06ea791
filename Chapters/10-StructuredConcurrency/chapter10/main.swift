// Chapter 10 — from OperationQueue to structured concurrency.
// Read along: Chapters/10-StructuredConcurrency/README.md
import AsyncOperations
import ChapterSupport
import Foundation
import StructuredConcurrency
import TaskOperations

// The pictures: this run is recorded when it runs with --timeline FOLDER (Scripts/draw-timelines).
Timeline.recordIfAsked()

/// Pacing for a human watching; none when CHAPTER_PACING=0. It never decides an order.
func pause(_ seconds: Double) async {
    try? await Task.sleep(nanoseconds: UInt64(seconds * Pacing.scale * 1e9))
}

/// Work that runs until it is cancelled (then throws `CancellationError`).
func workUntilCancelled(_ started: Countdown) async throws {
    started.arrive()
    try await Task.sleep(nanoseconds: 3_600 * 1_000_000_000)
}

// 1. Dependencies: download, then resize, then upload.
// Pictures only of the sections whose order is caused throughout: `.named` makes a BlockOperation
// or an OperationQueue that reports to them, with a Foundation name, which labels them;
// Timeline.workBegins/workEnds draw work that is not an Operation. The other sections are
// recorded but not drawn.
heading("Dependencies: addDependency")
let download = BlockOperation.named("download") { say("download") }
let resize = BlockOperation.named("resize") { say("resize") }
let upload = BlockOperation.named("upload") { say("upload") }
resize.addDependency(download)
upload.addDependency(resize)
let steps = [upload, resize, download]  // added in any order: the graph decides
// Timeline.awaiting: the pictures draw the awaiting task suspended until the call returns.
await Timeline.awaiting("queue.run", after: steps) { await OperationQueue.named("queue").run(steps) }

heading("Dependencies: await", drawn: false)
func downloaded() async -> String { "photo" }
func resized(_ image: String) async -> String { "small \(image)" }
say("upload \(await resized(await downloaded()))")
// Two independent steps at once, then one that needs both: `async let`.
async let small = resized("photo")
async let caption = "caption"
say("upload \(await small) with \(await caption)")

// 2. A width limit: at most 2 of 6 jobs at once. (How many did overlap depends on timing;
// that no more than 2 did is what the limit promises.)
heading("Width: maxConcurrentOperationCount = 2", drawn: false)
let queueGauge = ConcurrencyGauge()
let narrowQueue = OperationQueue()
narrowQueue.maxConcurrentOperationCount = 2
let narrowJobs = (1...6).map { _ in
    BlockOperation { queueGauge.measureSynchronous { Thread.sleep(forTimeInterval: 0.15 * Pacing.scale) } }
}
await narrowQueue.run(narrowJobs)
say("6 jobs, never more than 2 at once: \(queueGauge.most <= 2), \(queueGauge.finished) finished")

heading("Width: a task group that keeps at most 2 children running", drawn: false)
let groupGauge = ConcurrencyGauge()
let squares = try await withWidthLimit(2, over: Array(1...6)) { number in
    await groupGauge.measure {
        await pause(0.15)
        return number * number
    }
}
say("6 jobs, never more than 2 at once: \(groupGauge.most <= 2), \(groupGauge.finished) finished")
say("results in the order of the input: \(squares)")

// 3. FIFO order.
heading("Order: Task {} twice", drawn: false)
/// Task 1 is created first and waits until task 2 has started. Not on the main actor: these
/// tasks run on the global executor, in parallel, and nothing promises which starts first.
nonisolated func twoTasks() async {
    let secondStarted = Countdown(1)
    let first = Task {
        await secondStarted.untilZero()
        say("task 1 (created first) went on only once task 2 had started")
    }
    let second = Task {
        say("task 2 (created second) started before task 1 finished")
        secondStarted.arrive()
    }
    await first.value
    await second.value
}
await twoTasks()

heading("Order: a FIFO queue")
let fifo = FIFOQueue()
for job in 1...3 {
    fifo.enqueue {
        Timeline.workBegins("job \(job)")
        say("job \(job) started")
        await pause(0.2)  // suspends: the next job still waits
        say("job \(job) finished")
        Timeline.workEnds("job \(job)")
    }
}
fifo.close()
await fifo.untilClosedAndEmpty()

// 4. Cancelling everything.
heading("Cancel: cancelAllOperations()", drawn: false)
let started = Countdown(3)
let operations = (1...3).map { _ in TaskOperation { try await workUntilCancelled(started) } }
let queue = OperationQueue()
for operation in operations { queue.addOperation(operation) }
await started.untilZero()  // all three are running
queue.cancelAllOperations()
for operation in operations { await operation.untilFinished() }
let cancelled = operations.filter { if case .failure(is CancellationError)? = $0.result { true } else { false } }
say("\(cancelled.count) of 3 running operations ended with CancellationError")

heading("Cancel: group.cancelAll()", drawn: false)
let childrenStarted = Countdown(3)
let childErrors = await withTaskGroup(of: (any Error)?.self) { group in
    for _ in 1...3 {
        group.addTask {
            do {
                try await workUntilCancelled(childrenStarted)
                return nil
            } catch { return error }
        }
    }
    await childrenStarted.untilZero()
    group.cancelAll()
    var errors: [any Error] = []
    for await error in group { if let error { errors.append(error) } }
    return errors
}
say("\(childErrors.filter { $0 is CancellationError }.count) of 3 running children ended with CancellationError")

// 5. Barriers: a step that waits for everything before it.
heading("Barrier: addBarrierBlock", drawn: false)
let total = Locked(0)
let barrierQueue = OperationQueue()
barrierQueue.isSuspended = true  // all of it is pending together when the queue resumes
// The three operations before the barrier wait (without holding a thread) until all three
// have started, then add their value: a plain block in the barrier's place would start
// alongside them and see 0.
let beforeStarted = Countdown(3)
let letThemAdd = Countdown(1)
for value in [1, 2, 3] {
    barrierQueue.addOperation(
        TaskOperation {
            beforeStarted.arrive()
            await letThemAdd.untilZero()
            total.withLock { $0 += value }
        })
}
let sumSeen = Countdown(1)
barrierQueue.addBarrierBlock {
    say("the barrier sees a total of \(total.withLock { $0 })")
    sumSeen.arrive()
}
barrierQueue.addOperation { total.withLock { $0 += 100 } }
barrierQueue.isSuspended = false
await beforeStarted.untilZero()
letThemAdd.arrive()
await sumSeen.untilZero()

heading("Barrier: await the group, then the next step", drawn: false)
let groupTotal = await withTaskGroup(of: Int.self) { group in
    for value in [1, 2, 3] { group.addTask { value } }
    var total = 0
    for await value in group { total += value }
    return total
}
say("the next step sees a total of \(groupTotal)")

// 6. Progress.
heading("Progress: an AsyncStream", drawn: false)
for try await progress in progressOfRunning(Array(1...4), width: 2, { _ in await pause(0.2) }) {
    say("completed \(progress)")
}

// 7. Both at once, through chapter 5's bridge.
heading("Mixing: an async function awaits an operation")
/// An existing Operation-based API, kept as it is.
func makeExportOperation(_ name: String) -> BlockOperation {
    BlockOperation.named("export \(name)") { say("exported \(name)") }
}
let exporter = OperationQueue.named("exporter")
let export = makeExportOperation("album")
await Timeline.awaiting("queue.run", after: [export]) { await exporter.run(export) }
say("the async caller goes on after the export")

heading("Mixing: an operation runs a task group", drawn: false)
let sum = try await exporter.value(
    of: TaskOperation { try await withWidthLimit(2, over: [1, 2, 3]) { $0 * 10 }.reduce(0, +) })
say("the queue's TaskOperation returned \(sum)")
