import AsyncOperations
import Foundation
import TestSupport
import Testing

// A subclass in another module sees every change of the base's state, in order, through what any
// subclass may override: `start()`, `main()`, `onCancel(_:)`, and the getters that Foundation reads
// while the base announces a change (on Linux from inside `didChangeValue(forKey:)`; a Mac's
// subclass can override `didChangeValue(forKey:)` itself). What the chapters' pictures need, seen
// from outside the base: the observation points it keeps for them.

@Suite("Observed from outside: a subclass in another module sees every state change of the base, in order")
struct ObservedFromOutsideTests {
    @Test("run: start, executing, main, finished")
    func run() async {
        let operation = WatchedOperation()
        #expect(await OperationQueue().runs(operation))
        #expect(operation.events == ["start", "executing", "main", "finished"])
    }

    @Test("cancelled before it starts: cancelled, start, finished — never executing, no main")
    func cancelledBeforeStart() async {
        let operation = WatchedOperation()
        operation.cancel()
        #expect(await OperationQueue().runs(operation))
        #expect(operation.events == ["cancelled", "start", "finished"])
    }

    @Test("cancelled while it runs: start, executing, main, cancelled, finished")
    func cancelledWhileRunning() async {
        let operation = WatchedOperation(finishesWhenCancelled: true)
        let queue = OperationQueue()
        queue.addOperation(operation)
        #expect(await operation.mainRan.wait())
        operation.cancel()
        #expect(await queueLearnsFinished(operation))
        #expect(operation.events == ["start", "executing", "main", "cancelled", "finished"])
    }
}

/// Records the base's state changes as a reporting subclass in another module would.
private final class WatchedOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only thread-safe values to a thread-safe superclass.
    private let log = Locked<(events: [String], executing: Bool, finished: Bool)>(([], false, false))
    private let finishesWhenCancelled: Bool
    let mainRan = Flag()

    init(finishesWhenCancelled: Bool = false) {
        self.finishesWhenCancelled = finishesWhenCancelled
        super.init()
        onCancel { [log] in log.withLock { $0.events.append("cancelled") } }  // once, on the cancel that counts
    }

    var events: [String] { log.withLock { $0.events } }

    override func start() {
        log.withLock { $0.events.append("start") }
        super.start()
    }

    override func main() {
        log.withLock { $0.events.append("main") }
        mainRan.raise()
        if !finishesWhenCancelled { finish() } else { onCancel { self.finish() } }
    }

    #if os(Linux)
        // Foundation reads these inside `didChangeValue(forKey:)`; everyone else reads them here too,
        // so the first read that answers true comes before anyone can act on the change.
        override var isExecuting: Bool {
            let executing = super.isExecuting
            if executing { note(\.executing, "executing") }
            return executing
        }

        override var isFinished: Bool {
            let finished = super.isFinished
            if finished { note(\.finished, "finished") }
            return finished
        }
    #else
        // A Mac's subclass sees each announcement itself (not run here: no Mac).
        // kvo pairs checked by hand: this override only watches the base's didChangeValue calls, each
        // of which follows its own willChangeValue, and passes them on unchanged.
        override func didChangeValue(forKey key: String) {
            if key == "isExecuting" && super.isExecuting { note(\.executing, "executing") }
            if key == "isFinished" && super.isFinished { note(\.finished, "finished") }
            super.didChangeValue(forKey: key)
        }
    #endif

    /// Records `event` the first time `flag` is set.
    private func note(
        _ flag: WritableKeyPath<(events: [String], executing: Bool, finished: Bool), Bool>, _ event: String
    ) {
        log.withLock { log in
            guard !log[keyPath: flag] else { return }
            log[keyPath: flag] = true
            log.events.append(event)
        }
    }
}
