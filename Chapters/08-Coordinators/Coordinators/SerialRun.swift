import Foundation

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
