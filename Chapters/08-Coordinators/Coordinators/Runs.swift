import Foundation

// The two algorithms behind every callback-based type of this chapter, `SerialRun` and
// `ConcurrentRun`, run steps. A coordinator, an item operation and a batch operation differ
// only in what one "step" is (an operation, an item, a batch); how steps are run one after the
// other or all at once, and how their errors are collected, is written once, in those two.

/// What a step reports when it is done: nil, or the error it failed with.
typealias StepCompletion = @Sendable ((any Error)?) -> Void

/// Starts the step with the given index; the step calls the completion when it is done.
typealias Step = @Sendable (_ index: Int, _ completion: @escaping StepCompletion) -> Void

/// Runs steps 0..<count one after the other, then calls `completion` once with their errors,
/// in step order.
///
/// Each step starts when the previous one has called its completion. That completion may come
/// on any thread, or synchronously, before the step's `perform` has even returned. Starting
/// the next step from inside that completion would nest one call deeper per step, and a long
/// list of steps that complete at once would overflow the stack. So a completion that arrives
/// while its step is still being started only leaves a note, and the loop in `drive()` starts
/// the next step; a later completion drives on itself. The last step's completion has nothing
/// to start: it calls `completion` itself, on its own thread.
final class SerialRun: @unchecked Sendable {
    // @unchecked Sendable: `count`, `step` and `completion` are constants; every `var` is
    // read and written only while holding `lock`.
    private let lock = NSLock()
    private let count: Int
    private let step: Step
    private let completion: @Sendable ([any Error]) -> Void
    private var next = 0
    /// The step whose completion is awaited; a completion from any other step is ignored.
    private var awaited: Int?
    /// True while `drive()` is inside the current step's `perform`.
    private var starting = false
    /// Set when the current step completed while `drive()` was still starting it.
    private var completedWhileStarting = false
    private var errors: [any Error] = []

    private init(count: Int, step: @escaping Step, completion: @escaping @Sendable ([any Error]) -> Void) {
        self.count = count
        self.step = step
        self.completion = completion
    }

    /// Starts the first of `count` steps, or completes at once (with no errors) if there are none.
    static func start(
        steps count: Int, completion: @escaping @Sendable ([any Error]) -> Void, step: @escaping Step
    ) {
        SerialRun(count: count, step: step, completion: completion).drive()
    }

    private func drive() {
        while true {
            lock.lock()
            guard next < count else {  // only a run of no steps gets here: the last step completes itself
                let errors = self.errors
                lock.unlock()
                completion(errors)
                return
            }
            let index = next
            next += 1
            awaited = index
            starting = true
            completedWhileStarting = false
            lock.unlock()

            step(index) { error in self.stepCompleted(index, error) }

            lock.lock()
            starting = false
            let goOnHere = completedWhileStarting
            lock.unlock()
            guard goOnHere else { return }  // the step's completion will drive on
        }
    }

    private func stepCompleted(_ index: Int, _ error: (any Error)?) {
        lock.lock()
        guard awaited == index else {
            lock.unlock()
            return  // a second call of the same completion: the step was already counted
        }
        awaited = nil
        if let error { errors.append(error) }
        if next == count {
            // The last step: nothing is left to start, so there is no stack to grow. Complete
            // here, on the thread that delivered this completion, as `Coordinator` promises —
            // also when it arrives while drive() is still inside the step's perform.
            let errors = self.errors
            lock.unlock()
            completion(errors)
            return
        }
        if starting {
            completedWhileStarting = true  // drive() is still in the step's perform; it goes on
            lock.unlock()
            return
        }
        lock.unlock()
        drive()
    }
}

/// Starts steps 0..<count at once, then calls `completion` once, when every step has
/// completed, with their errors in step order (not in the order they arrived).
///
/// The completions may arrive on many threads at the same time: each one is recorded under
/// the lock, and only the one that completes the last step calls `completion`.
final class ConcurrentRun: @unchecked Sendable {
    // @unchecked Sendable: `completion` is a constant; `slots` and `remaining` are read and
    // written only while holding `lock`.
    private enum Slot {
        case pending
        case succeeded
        case failed(any Error)

        var error: (any Error)? {
            if case .failed(let error) = self { return error }
            return nil
        }
    }

    private let lock = NSLock()
    private let completion: @Sendable ([any Error]) -> Void
    private var slots: [Slot]
    private var remaining: Int

    private init(count: Int, completion: @escaping @Sendable ([any Error]) -> Void) {
        self.completion = completion
        slots = Array(repeating: .pending, count: count)
        remaining = count
    }

    /// Starts all `count` steps, in index order, on the caller's thread; completes at once
    /// (with no errors) if there are none.
    static func start(
        steps count: Int, completion: @escaping @Sendable ([any Error]) -> Void, step: @escaping Step
    ) {
        guard count > 0 else { return completion([]) }
        let run = ConcurrentRun(count: count, completion: completion)
        for index in 0..<count {
            step(index) { error in run.stepCompleted(index, error) }
        }
    }

    private func stepCompleted(_ index: Int, _ error: (any Error)?) {
        lock.lock()
        guard case .pending = slots[index] else {
            lock.unlock()
            return  // a second call of the same completion: the step was already counted
        }
        slots[index] = error.map(Slot.failed) ?? .succeeded
        remaining -= 1
        let errors: [any Error]? = remaining == 0 ? slots.compactMap(\.error) : nil
        lock.unlock()
        if let errors { completion(errors) }
    }
}
