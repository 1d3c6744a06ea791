import AsyncOperations
import Coordinators
import TestSupport
import Testing

@Suite("Chapter 8 — item, batch and collection operations with callbacks")
struct Chapter8CollectionTests {
    @Test("serial items: one at a time, in order; errors in item order")
    func serialItems() {
        let held = HeldCompletions()
        let operation = SerialItems(recording: RecordingItems(completing: .held(held), failing: [20, 40]))
        let recorder = CompletionRecorder()
        operation.perform(onCollection: [10, 20, 30, 40], completion: recorder.record)
        #expect(operation.recording.log.withLock { $0 } == [10])
        held.complete(10)
        #expect(operation.recording.log.withLock { $0 } == [10, 20])
        for item in [20, 30, 40] { held.complete(item) }
        #expect(operation.recording.log.withLock { $0 } == [10, 20, 30, 40])
        #expect(recorder.count == 1)
        #expect(failureIDs(recorder.errors ?? []) == [20, 40])
    }

    @Test("concurrent items: all started at once; errors in item order, not in order of arrival")
    func concurrentItems() {
        let held = HeldCompletions()
        let operation = ConcurrentItems(recording: RecordingItems(completing: .held(held), failing: [20, 40]))
        let recorder = CompletionRecorder()
        operation.perform(onCollection: [10, 20, 30, 40], completion: recorder.record)
        #expect(operation.recording.log.withLock { $0 } == [10, 20, 30, 40])
        for item in [40, 30, 20] { held.complete(item) }
        #expect(recorder.count == 0)
        held.complete(10)
        #expect(recorder.count == 1)
        #expect(failureIDs(recorder.errors ?? []) == [20, 40])
    }

    static let splits: [(items: Int, batchSize: Int, sizes: [Int])] = [
        (10, 3, [3, 3, 3, 1]),
        (9, 3, [3, 3, 3]),
        (10, 1, Array(repeating: 1, count: 10)),
        (10, 10, [10]),
        (3, 5, [3]),  // a batch size larger than the collection: one batch
        (0, 3, []),  // an empty collection: no batch, still one completion
    ]

    @Test("batches split correctly, and the completion runs exactly once", arguments: splits)
    func batchSplits(items count: Int, batchSize: Int, sizes: [Int]) {
        let items = (0..<count).map { $0 + 1 }
        let serial = SerialBatches(batchSize: batchSize)
        let concurrent = ConcurrentBatches(batchSize: batchSize)
        let serialRecorder = CompletionRecorder()
        let concurrentRecorder = CompletionRecorder()
        serial.perform(onCollection: items, completion: serialRecorder.record)
        concurrent.perform(onCollection: items, completion: concurrentRecorder.record)

        for (batches, recorder) in [(serial.batches, serialRecorder), (concurrent.batches, concurrentRecorder)] {
            let batches = batches.withLock { $0 }
            #expect(batches.map(\.count) == sizes)
            #expect(batches.flatMap { $0 } == items, "every item once, in order")
            #expect(recorder.count == 1)
            #expect(recorder.errors?.isEmpty == true)
        }
    }

    @Test(
        "a batch size below 1 is reported as InvalidBatchSize; no batch runs, nothing traps",
        arguments: [0, -1, Int.min])
    func invalidBatchSize(batchSize: Int) {
        let serial = SerialBatches(batchSize: batchSize)
        let concurrent = ConcurrentBatches(batchSize: batchSize)
        let serialRecorder = CompletionRecorder()
        let concurrentRecorder = CompletionRecorder()
        serial.perform(onCollection: Array(1...10), completion: serialRecorder.record)
        concurrent.perform(onCollection: Array(1...10), completion: concurrentRecorder.record)

        for (batches, recorder) in [(serial.batches, serialRecorder), (concurrent.batches, concurrentRecorder)] {
            #expect(batches.withLock { $0 }.isEmpty)
            #expect(recorder.count == 1)
            let errors = recorder.errors ?? []
            #expect(errors.count == 1)
            #expect(errors.first as? InvalidBatchSize == InvalidBatchSize(batchSize: batchSize))
        }
        #expect("\(InvalidBatchSize(batchSize: 0))" == "batch size must be at least 1, got 0")
    }
}
