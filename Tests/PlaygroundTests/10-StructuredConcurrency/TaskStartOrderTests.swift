import AsyncOperations
import TestSupport
import Testing

/// A global actor for the order test: tasks isolated to it explicitly.
@globalActor actor OrderActor {
    static let shared = OrderActor()
}

/// An actor that records, and starts a `Task {}` and a `Task.immediate` from inside its own method.
actor StartRecorder {
    private(set) var events: [String] = []

    func record(_ event: String) {
        events.append(event)
    }

    /// Creates both tasks while this actor is busy running this method, and returns them.
    func startBoth() -> [Task<Void, Never>] {
        let enqueued = Task { self.record("Task {}") }  // isolated to self: waits for this method
        guard #available(macOS 26, iOS 26, *) else { return [enqueued] }
        let immediate = Task.immediate { self.record("Task.immediate") }  // runs now, on this actor
        record("after creating both")
        return [enqueued, immediate]
    }
}

// What Swift promises about when a task starts (SE-0431, SE-0472), checked on this toolchain.
@Suite("Chapter 10 — what Swift promises about when a task starts")
struct TaskStartOrderTests {
    @Test("Task.immediate runs before its creator goes on; Task {} isolated to a busy actor, after")
    func immediateRunsBeforeTheCreatorGoesOn() async {
        guard #available(macOS 26, iOS 26, *) else { return }
        let recorder = StartRecorder()
        for task in await recorder.startBoth() { await task.value }
        #expect(await recorder.events == ["Task.immediate", "after creating both", "Task {}"])
    }

    @Test("tasks of one priority, isolated to one actor explicitly, start in the order they were created")
    func explicitlyIsolatedTasksStartInOrder() async {
        // SE-0431: such a task is queued on its actor when it is created. Of one priority: an
        // actor runs higher-priority work first, so mixed priorities break this order. (Plain
        // `Task {}`s that hop to the actor kept it too on this machine, but nothing promises it.)
        let order = Locked<[Int]>([])
        let tasks = (0..<200).map { index in
            Task { @OrderActor in order.withLock { $0.append(index) } }
        }
        for task in tasks { await task.value }
        #expect(order.withLock { $0 } == Array(0..<200))
    }
}
