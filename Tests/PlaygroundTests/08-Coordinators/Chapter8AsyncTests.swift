import AsyncOperations
import Coordinators
import Dispatch
import TestSupport
import Testing

/// An async test operation: records "start <id>" and "end <id>", and between the two either
/// waits until every operation of its run has started (`rendezvous`) or lets another thread
/// resume it.
struct AsyncTestOperation: AsyncCoordinatedOperation {
    let id: Int
    var fails = false
    var log: EventLog?
    var rendezvous: Rendezvous?

    func perform() async throws {
        log?.record("start \(id)")
        if let rendezvous {
            guard await rendezvous.arrive() else { throw NotAllAtOnce() }
        } else {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume() }
            }
        }
        log?.record("end \(id)")
        if fails { throw TestFailure(id: id) }
    }
}

struct NotAllAtOnce: Error {}

/// A meeting point for `count` concurrent operations: each one that arrives waits until all
/// have arrived. Bounded: an operation gives up after 5 s, and once one has given up, the
/// others do not wait at all (a serial run fails in 5 s, not in 5 s per operation).
final class Rendezvous: Sendable {
    private let arrivals: Counter
    private let gaveUp = Flag()

    init(count: Int) {
        arrivals = Counter(target: count)
    }

    /// True once all have arrived; false if that did not happen in time.
    func arrive() async -> Bool {
        arrivals.increment()
        if gaveUp.isRaised { return false }
        if await arrivals.waitForTarget(seconds: 5) { return true }
        gaveUp.raise()
        return false
    }
}

/// Sleeps for an hour unless cancelled.
struct AsyncSleeper: AsyncCoordinatedOperation {
    func perform() async throws {
        try await Task.sleep(nanoseconds: 3_600_000_000_000)
    }
}

struct AsyncSerialItems: AsyncSerialCollectionItemOperation {
    let log = EventLog()

    func perform(onItem item: Int) async throws {
        try await AsyncTestOperation(id: item, fails: item.isMultiple(of: 20), log: log).perform()
    }
}

struct AsyncConcurrentItems: AsyncConcurrentCollectionItemOperation {
    let rendezvous: Rendezvous

    func perform(onItem item: Int) async throws {
        try await AsyncTestOperation(id: item, fails: item.isMultiple(of: 20), rendezvous: rendezvous).perform()
    }
}

struct AsyncSerialBatches: AsyncSerialCollectionBatchOperation {
    let batchSize: Int
    let batches = Locked<[[Int]]>([])

    func perform(onBatch batch: [Int]) async throws {
        batches.withLock { $0.append(batch) }
    }
}

struct AsyncConcurrentBatches: AsyncConcurrentCollectionBatchOperation {
    let batchSize: Int
    let batches = Locked<[[Int]]>([])

    func perform(onBatch batch: [Int]) async throws {
        batches.withLock { $0.append(batch) }
    }
}

let asyncSerialCoordinators: [any AsyncCoordinator] = [AsyncSerialCoordinator(), AsyncSerialItemCoordinator()]
let asyncConcurrentCoordinators: [any AsyncCoordinator] = [
    AsyncConcurrentCoordinator(), AsyncConcurrentItemCoordinator(),
]

@Suite("Chapter 8 — the same protocols with async/await")
struct Chapter8AsyncTests {
    @Test(
        "serial: each operation starts when the previous one has ended; errors in order",
        arguments: asyncSerialCoordinators)
    func serialOrder(coordinator: any AsyncCoordinator) async {
        let log = EventLog()
        let operations = (0..<4).map { AsyncTestOperation(id: $0, fails: $0 == 1 || $0 == 2, log: log) }
        let errors = await coordinator.perform(operations: operations)
        #expect(log.events == ["start 0", "end 0", "start 1", "end 1", "start 2", "end 2", "start 3", "end 3"])
        #expect(failureIDs(errors) == [1, 2])
    }

    @Test(
        "concurrent (task group): all operations run at once; errors in the operations' order",
        arguments: asyncConcurrentCoordinators)
    func concurrentRendezvous(coordinator: any AsyncCoordinator) async {
        // Each operation waits until all 20 have started: a coordinator that ran them one
        // after the other would fail them with NotAllAtOnce (after 5 s).
        let rendezvous = Rendezvous(count: 20)
        let operations = (0..<20).map {
            AsyncTestOperation(id: $0, fails: $0.isMultiple(of: 3), rendezvous: rendezvous)
        }
        let errors = await coordinator.perform(operations: operations)
        #expect(failureIDs(errors) == Array(stride(from: 0, to: 20, by: 3)))
    }

    @Test("an empty list returns no errors")
    func emptyList() async {
        for coordinator in asyncSerialCoordinators + asyncConcurrentCoordinators {
            #expect(await coordinator.perform(operations: []).isEmpty, "\(coordinator)")
        }
    }

    @Test("items, serially and concurrently; errors in item order")
    func items() async {
        let serial = AsyncSerialItems()
        let serialErrors = await serial.perform(onCollection: [10, 20, 30, 40])
        #expect(serial.log.events == [10, 20, 30, 40].flatMap { ["start \($0)", "end \($0)"] })
        #expect(failureIDs(serialErrors) == [20, 40])

        let concurrent = AsyncConcurrentItems(rendezvous: Rendezvous(count: 4))
        let concurrentErrors = await concurrent.perform(onCollection: [10, 20, 30, 40])
        #expect(failureIDs(concurrentErrors) == [20, 40])
    }

    @Test("batches split correctly", arguments: Chapter8CollectionTests.splits)
    func batchSplits(items count: Int, batchSize: Int, sizes: [Int]) async {
        let items = (0..<count).map { $0 + 1 }
        let serial = AsyncSerialBatches(batchSize: batchSize)
        let concurrent = AsyncConcurrentBatches(batchSize: batchSize)
        #expect(await serial.perform(onCollection: items).isEmpty)
        #expect(await concurrent.perform(onCollection: items).isEmpty)
        #expect(serial.batches.withLock { $0 }.map(\.count) == sizes)
        #expect(serial.batches.withLock { $0 }.flatMap { $0 } == items)
        // A task group starts its child tasks in no fixed order: compare the batches sorted.
        let concurrentBatches = concurrent.batches.withLock { $0 }.sorted { $0[0] < $1[0] }
        #expect(concurrentBatches.map(\.count) == sizes)
        #expect(concurrentBatches.flatMap { $0 } == items)
    }

    @Test("a batch size below 1 is returned as InvalidBatchSize; no batch runs", arguments: [0, -1, Int.min])
    func invalidBatchSize(batchSize: Int) async {
        let serial = AsyncSerialBatches(batchSize: batchSize)
        let concurrent = AsyncConcurrentBatches(batchSize: batchSize)
        let serialErrors = await serial.perform(onCollection: [1, 2, 3])
        let concurrentErrors = await concurrent.perform(onCollection: [1, 2, 3])
        for errors in [serialErrors, concurrentErrors] {
            #expect(errors.count == 1)
            #expect(errors.first as? InvalidBatchSize == InvalidBatchSize(batchSize: batchSize))
        }
        #expect(serial.batches.withLock { $0 }.isEmpty && concurrent.batches.withLock { $0 }.isEmpty)
    }

    @Test("cancelling the awaiting task cancels the operations: each ends with CancellationError")
    func cancellation() async {
        for coordinator in asyncSerialCoordinators + asyncConcurrentCoordinators {
            let result = Locked<[any Error]?>(nil)
            let returned = Flag()
            let task = Task {
                let errors = await coordinator.perform(operations: [AsyncSleeper(), AsyncSleeper(), AsyncSleeper()])
                result.withLock { $0 = errors }
                returned.raise()
            }
            task.cancel()
            #expect(await returned.wait(), "\(coordinator) kept sleeping after cancellation")
            let errors = result.withLock { $0 } ?? []
            #expect(errors.count == 3 && errors.allSatisfy { $0 is CancellationError }, "\(coordinator): \(errors)")
        }
    }
}
