import AsyncOperations
import ChapterSupport
import Foundation
import Recording
import TestSupport
import Testing

/// The pictures observe the chapters' operations from outside their libraries: a reporting
/// subclass in another module, with an `OperationWatch`, sees every change of the base's state,
/// in the order the queue sees it (what the base's own report calls drew before).
@Suite("OperationWatch: a reporting subclass sees what the queue sees")
struct OperationWatchTests {
    /// The events recorded in `recorder`'s only section, one line each.
    static func lines(_ recorder: Recorder) -> [String] {
        recorder.recordedSections().first.map(TimelineText.lines(of:)) ?? []
    }

    @Test("run: start(), executing, its work, finished")
    func run() async {
        let recorder = Recorder()
        recorder.beginSection("run")
        let operation = WatchedOperation(recorder: recorder).named("watched")
        #expect(await OperationQueue().runs(operation))
        #expect(
            Self.lines(recorder) == [
                "watched: start()", "watched: executing", "watched: its work starts", "watched: its work ends",
                "watched: finished",
            ])
    }

    @Test("cancelled before it starts: cancelled, start(), finished; never executing, no work")
    func cancelledBeforeStart() async {
        let recorder = Recorder()
        recorder.beginSection("cancelled")
        let operation = WatchedOperation(recorder: recorder).named("watched")
        operation.cancel()
        let queue = OperationQueue()
        queue.addOperation(operation)
        #expect(await queueLearnsFinished(operation))
        #expect(Self.lines(recorder) == ["watched: cancelled", "watched: start()", "watched: finished"])
    }

    @Test("cancelled while it runs: the cancel comes before the end of its work, which comes before finished")
    func cancelledWhileRunning() async {
        let recorder = Recorder()
        recorder.beginSection("cancelled while running")
        let operation = WatchedOperation(recorder: recorder, finishesWhenCancelled: true).named("watched")
        let queue = OperationQueue()
        queue.addOperation(operation)
        #expect(await operation.mainRan.wait())
        operation.cancel()
        #expect(await queueLearnsFinished(operation))
        #expect(
            Self.lines(recorder) == [
                "watched: start()", "watched: executing", "watched: its work starts", "watched: cancelled",
                "watched: its work ends", "watched: finished",
            ])
    }

    @Test("a dependent starts after its dependency's finished is recorded, whoever reads isFinished first")
    func finishedComesFirst() async {
        let recorder = Recorder()
        recorder.beginSection("dependency")
        let first = WatchedOperation(recorder: recorder).named("first")
        let second = WatchedOperation(recorder: recorder).named("second")
        second.addDependency(first)
        #expect(await OperationQueue().runs([second, first]))
        let lines = Self.lines(recorder)
        #expect(lines.firstIndex(of: "first: finished")! < lines.firstIndex(of: "second: start() after first")!)
    }

    @Test("a closure run as the operation's asynchronous work is drawn from its start to its return, or its throw")
    func asynchronousWork() async {
        let recorder = Recorder()
        recorder.beginSection("work")
        let operation = BlockOperation()
        operation.name = "task"
        let watch = OperationWatch(reportingTo: recorder)
        watch.made(operation)
        let value = await watch.asynchronousWork {
            await Task.yield()
            return 42
        }
        #expect(value == 42)
        await #expect(throws: CancellationError.self) { try await watch.asynchronousWork { throw CancellationError() } }
        #expect(
            Self.lines(recorder) == [
                "task: its work starts", "task: its work ends", "task: its work starts", "task: its work ends",
            ])
    }
}

/// An asynchronous operation in another module than the base, watched as the chapters'
/// reporting subclasses watch theirs: `start()`, `main()`, the getters, an `onCancel` handler.
private final class WatchedOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds a thread-safe watch and a flag to a thread-safe superclass.
    private let watch: OperationWatch
    private let finishesWhenCancelled: Bool
    let mainRan = Flag()

    init(recorder: Recorder, finishesWhenCancelled: Bool = false) {
        watch = OperationWatch(reportingTo: recorder)
        self.finishesWhenCancelled = finishesWhenCancelled
        super.init()
        watch.made(self)
        onCancel(watch.cancelTookEffect)
    }

    override func start() { watch.start(self) { super.start() } }
    override func main() {
        watch.main(self, work: true) {
            mainRan.raise()
            if finishesWhenCancelled {
                onCancel { self.finish() }
            } else {
                DispatchQueue.global().async { self.finish() }
            }
        }
    }
    override var isExecuting: Bool { watch.executing(self, super.isExecuting) }
    override var isFinished: Bool { watch.finished(self, super.isFinished) }
    override var isCancelled: Bool { watch.cancelled(self, super.isCancelled) }
}
