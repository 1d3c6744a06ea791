import Foundation

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
