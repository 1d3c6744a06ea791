// Chapter 8 — coordinators without PromiseKit. Read along: Chapters/08-Coordinators/README.md
import ChapterSupport
import Coordinators
import Dispatch
import Foundation

// The pictures: this run is recorded when it runs with --timeline FOLDER (Scripts/draw-timelines).
Timeline.recordIfAsked()

/// The article's no-op operation, made visible: it says when it starts, and finishes on
/// `worker` after a short pause.
struct NoOp: CoordinatedOperation {
    let name: String
    let worker: DispatchQueue

    func perform(completion: @escaping @Sendable ((any Error)?) -> Void) {
        Timeline.workBegins(name)  // the chapter's pictures: this lane's bar begins
        say("\(name) started")
        worker.async {
            pause(0.2)
            say("\(name) finished")
            Timeline.workEnds(name)
            completion(nil)
        }
    }
}

/// A step that finishes after `seconds` on a global queue, and fails if told to.
struct Step: CoordinatedOperation {
    let number: Int
    let fails: Bool
    let seconds: Double

    func perform(completion: @escaping @Sendable ((any Error)?) -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + Pacing.delay(seconds)) {
            completion(fails ? StepFailed(number: number) : nil)
        }
    }
}

struct StepFailed: Error, CustomStringConvertible {
    let number: Int
    var description: String { "step \(number) failed" }
}

/// Prints every batch it is given.
struct PrintBatches: SerialCollectionBatchOperation {
    typealias Item = Int
    let batchSize: Int

    func perform(onBatch batch: [Int], completion: @escaping @Sendable ((any Error)?) -> Void) {
        say("Batch " + batch.map(String.init).joined(separator: ", "))
        completion(nil)
    }
}

/// The async/await twins of `NoOp` and `Step`.
struct AsyncNoOp: AsyncCoordinatedOperation {
    let name: String

    func perform() async throws {
        say("\(name) started")
        await pause(0.2)
        say("\(name) finished")
    }
}

struct AsyncStep: AsyncCoordinatedOperation {
    let number: Int
    let fails: Bool
    let seconds: Double

    func perform() async throws {
        await pause(seconds)
        if fails { throw StepFailed(number: number) }
    }
}

/// Pacing for a human watching; none when CHAPTER_PACING=0. It never decides an order.
func pause(_ seconds: Double) {
    Thread.sleep(forTimeInterval: seconds * Pacing.scale)
}

func pause(_ seconds: Double) async {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().asyncAfter(deadline: .now() + Pacing.delay(seconds)) { continuation.resume() }
    }
}

/// What every coordinated run ends with: its errors, if any, then "All done".
@Sendable func allDone(_ errors: [any Error]) {
    if !errors.isEmpty { say("Errors: " + errors.map { "\($0)" }.joined(separator: ", ")) }
    say("All done")
}

/// Starts `run`, whose completion must be `allDone`, and waits until it is called.
///
/// The no-ops' work waits on `worker`, which is held until `run` has returned: whatever a
/// coordinator starts at once has started before any work finishes, at any speed.
func coordinate(on worker: DispatchQueue, _ run: (@escaping @Sendable ([any Error]) -> Void) -> Void) {
    let done = DispatchSemaphore(value: 0)
    worker.suspend()
    run { errors in
        allDone(errors)
        done.signal()
    }
    worker.resume()
    waitOrExit(done, for: "All done")
}

heading("The article's example: two MyOperations, concurrently, then serially")
runTheArticlesExample()

heading("The same example on the article's final coordinators")
runTheArticlesExampleOnItsFinalCoordinators()

let worker = DispatchQueue(label: "chapter8.worker")
let noOps = [NoOp(name: "No-op 1", worker: worker), NoOp(name: "No-op 2", worker: worker)]

heading("Two no-op operations, serially")
coordinate(on: worker) { SerialCoordinator().perform(operations: noOps, completion: $0) }

heading("The same two, concurrently", besidePrevious: true)
coordinate(on: worker) { ConcurrentCoordinator().perform(operations: noOps, completion: $0) }

// Paced, step 4 finishes first and step 1 last; the errors still come in step order.
heading("Four steps at once; steps 2 and 4 fail")
let steps = (1...4).map { Step(number: $0, fails: $0.isMultiple(of: 2), seconds: 0.1 * Double(5 - $0)) }
coordinate(on: worker) { ConcurrentCoordinator().perform(operations: steps, completion: $0) }

heading("Ten items in batches of 3")
coordinate(on: worker) { PrintBatches(batchSize: 3).perform(onCollection: Array(1...10), completion: $0) }

heading("A batch size of 0")
coordinate(on: worker) { PrintBatches(batchSize: 0).perform(onCollection: Array(1...10), completion: $0) }

heading("The two no-ops with async/await, serially")
allDone(await AsyncSerialCoordinator().perform(operations: [AsyncNoOp(name: "No-op 1"), AsyncNoOp(name: "No-op 2")]))

heading("The four steps in a task group")
let asyncSteps = (1...4).map { AsyncStep(number: $0, fails: $0.isMultiple(of: 2), seconds: 0.1 * Double(5 - $0)) }
allDone(await AsyncConcurrentCoordinator().perform(operations: asyncSteps))
