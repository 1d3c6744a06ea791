import AsyncOperations
import Coordinators
import Dispatch
import Foundation
import TestSupport

// Test operations for chapter 8. Their completions are called by the test itself (held),
// at once, or from a queue the test controls, so that every order a test asserts is caused.

/// The error a test operation fails with; `id` says which one.
struct TestFailure: Error, Equatable {
    let id: Int
}

/// The ids of `errors`, which must all be `TestFailure`s (-1 marks any other error).
func failureIDs(_ errors: [any Error]) -> [Int] {
    errors.map { ($0 as? TestFailure)?.id ?? -1 }
}

/// Completions a test calls itself, when and in the order it chooses.
final class HeldCompletions: Sendable {
    private let held = Locked<[Int: @Sendable () -> Void]>([:])

    func hold(_ id: Int, _ complete: @escaping @Sendable () -> Void) {
        held.withLock { $0[id] = complete }
    }

    /// The ids held and not completed yet, sorted.
    var ids: [Int] { held.withLock { $0.keys.sorted() } }

    /// Removes every held completion and returns them, in id order, without calling them.
    func takeAll() -> [@Sendable () -> Void] {
        held.withLock { held in
            defer { held = [:] }
            return held.keys.sorted().map { held[$0]! }
        }
    }

    /// Calls the held completion of `id` once; false if there is none.
    @discardableResult func complete(_ id: Int) -> Bool {
        guard let complete = held.withLock({ $0.removeValue(forKey: id) }) else { return false }
        complete()
        return true
    }
}

/// How a test operation (or item, or batch) completes.
enum Completing: Sendable {
    /// Before `perform` returns.
    case immediately
    /// From a block sent to this queue.
    case on(DispatchQueue)
    /// When the test calls `HeldCompletions.complete(id)`.
    case held(HeldCompletions)
    /// Twice, before `perform` returns: a broken operation.
    case twice

    func complete(_ id: Int, _ completion: @escaping @Sendable () -> Void) {
        switch self {
        case .immediately: completion()
        case .on(let queue): queue.async(execute: completion)
        case .held(let held): held.hold(id, completion)
        case .twice:
            completion()
            completion()
        }
    }
}

/// Records "start <id>" when performed and "end <id>" just before it completes.
struct TestOperation: CoordinatedOperation {
    let id: Int
    var fails = false
    var completing = Completing.immediately
    var log: EventLog?

    func perform(completion: @escaping @Sendable ((any Error)?) -> Void) {
        log?.record("start \(id)")
        let error: (any Error)? = fails ? TestFailure(id: id) : nil
        completing.complete(id) {
            log?.record("end \(id)")
            completion(error)
        }
    }
}

/// Calls its completion from a thread of its own, marked with its id (`deliveringOperation`),
/// and returns from `perform` only once that call has returned: the completion arrives on
/// another thread while the coordinator is still inside `perform`.
struct DeliversOnItsOwnThread: CoordinatedOperation {
    let id: Int

    func perform(completion: @escaping @Sendable ((any Error)?) -> Void) {
        let delivered = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [id] in
            // Not the thread's name: on Linux it can only be set from the thread itself.
            Thread.current.threadDictionary[Self.key] = id
            completion(nil)
            delivered.signal()
        }
        // A synchronous function, called from a thread of the test's own (`blockingCall`).
        _ = delivered.wait(timeout: .now() + 60)
    }

    private static let key = "DeliversOnItsOwnThread"

    /// The id of the operation whose thread this is; nil on any other thread.
    static var deliveringOperation: Int? {
        Thread.current.threadDictionary[key] as? Int
    }
}

/// Records every call of a coordinator's (or collection operation's) completion.
final class CompletionRecorder: Sendable {
    private let calls = Locked<[[any Error]]>([])
    private let called = Flag()

    @Sendable func record(_ errors: [any Error]) {
        calls.withLock { $0.append(errors) }
        called.raise()
    }

    /// How many times the completion was called so far.
    var count: Int { calls.withLock { $0.count } }

    /// The errors of the first call (nil if there was none yet).
    var errors: [any Error]? { calls.withLock { $0.first } }

    /// True once the completion was called, false after `seconds`.
    func waitForCall(seconds: Double = 10) async -> Bool {
        await called.wait(seconds: seconds)
    }
}

/// One round of the scenario in which the article's concurrent coordinator races, for the
/// package's coordinators: `count` operations that all fail, whose completions `threads`
/// threads begun together deliver, each a share of them. What went wrong, or nil if the
/// completion was called once, with every error in the operations' order.
///
/// The completion is called on the thread that delivers the last operation's completion,
/// before that call returns: once every thread is done, it has been called, or never will be.
/// Blocks until then: call it from a synchronous function, off the cooperative pool.
func completeTogether(with coordinator: some Coordinator, count: Int, threads: Int = 4) -> String? {
    let held = HeldCompletions()
    let operations = (0..<count).map { TestOperation(id: $0, fails: true, completing: .held(held)) }
    let recorder = CompletionRecorder()
    coordinator.perform(operations: operations, completion: recorder.record)
    let completions = held.takeAll()
    SimultaneousThreads.run(threads) { thread in
        for index in stride(from: thread, to: completions.count, by: threads) { completions[index]() }
    }
    guard recorder.count == 1 else { return "the completion was called \(recorder.count) times, not once" }
    let ids = failureIDs(recorder.errors ?? [])
    let missing = count - Set(ids).count
    if missing > 0 { return "\(missing) of \(count) errors lost" }
    return ids == Array(0..<count) ? nil : "errors out of order, or reported twice"
}

/// Records the items it is given; completes each as `completing` says, keyed by the item.
struct RecordingItems: Sendable {
    let log = Locked<[Int]>([])
    var completing = Completing.immediately
    var failing: Set<Int> = []

    func perform(onItem item: Int, completion: @escaping @Sendable ((any Error)?) -> Void) {
        log.withLock { $0.append(item) }
        let error: (any Error)? = failing.contains(item) ? TestFailure(id: item) : nil
        completing.complete(item) { completion(error) }
    }
}

struct SerialItems: SerialCollectionItemOperation {
    var recording = RecordingItems()

    func perform(onItem item: Int, completion: @escaping @Sendable ((any Error)?) -> Void) {
        recording.perform(onItem: item, completion: completion)
    }
}

struct ConcurrentItems: ConcurrentCollectionItemOperation {
    var recording = RecordingItems()

    func perform(onItem item: Int, completion: @escaping @Sendable ((any Error)?) -> Void) {
        recording.perform(onItem: item, completion: completion)
    }
}

/// Records the batches it is given, and completes each at once.
struct SerialBatches: SerialCollectionBatchOperation {
    let batchSize: Int
    let batches = Locked<[[Int]]>([])

    func perform(onBatch batch: [Int], completion: @escaping @Sendable ((any Error)?) -> Void) {
        batches.withLock { $0.append(batch) }
        completion(nil)
    }
}

struct ConcurrentBatches: ConcurrentCollectionBatchOperation {
    let batchSize: Int
    let batches = Locked<[[Int]]>([])

    func perform(onBatch batch: [Int], completion: @escaping @Sendable ((any Error)?) -> Void) {
        batches.withLock { $0.append(batch) }
        completion(nil)
    }
}
