// SPDX-License-Identifier: MIT
// Copyright (c) 2026 the AsyncOperationsPlayground authors: LICENSE, at the repository's root.
import Foundation

// The mistakes that Foundation's own `start()` traps on, checked where `AsyncOperation` can
// tell them. It overrides `start()` without calling `super.start()` (which would finish it as
// soon as `main()` returns), so Foundation's own checks never run; these stand in for them.
// Each is proven by a test that fails without it (chapter 3's README lists them). One mistake
// they cannot tell: a start by hand of an operation that waits in a queue. Nothing Foundation
// lets a subclass read says that a queue holds it; chapter 3's README says what follows.

nonisolated extension AsyncOperation {
    /// Traps when the operation is started by hand before its dependencies have finished, as
    /// Foundation's `start()` does ("receiver is not yet ready to execute").
    ///
    /// A queue may start an operation that is not ready: one it picked before a dependency was
    /// added (Apple, `addDependency(_:)`: a dependency added once an operation executes "has no
    /// practical effect"). That start runs, as Foundation's own operations do.
    func startedBeforeItsDependenciesFinished() {
        guard !startedByItsQueue else { return }
        preconditionFailure(
            "\(self) was started by hand before its dependencies finished: add it to a queue, or start it once they have"
        )
    }

    // Whether the queue that runs this thread holds the operation, so that this start is the
    // queue's. A start by hand from a thread of that queue cannot be told apart from it.
    private var startedByItsQueue: Bool {
        if let queue = OperationQueue.current, queue.operations.contains(where: { $0 === self }) { return true }
        #if os(Linux)
            // On the main thread, Linux's `OperationQueue.current` answers the main queue, whatever
            // queue runs there: a queue whose underlying queue is (or targets) the main queue runs
            // its operations from the main run loop. Outside a running run loop, no queue does.
            return Thread.isMainThread && RunLoop.main.currentMode != nil
        #else
            return false
        #endif
    }

    /// A second `start()`: traps while the operation runs, as Foundation's `start()` does
    /// ("receiver is already executing"); once it has finished, does nothing, as Foundation's.
    ///
    /// On Linux it also traps when the second start comes from a queue that held the operation
    /// while someone started it by hand and it finished: Foundation has then set its own state of
    /// the operation back from finished to starting, which nothing else does. Left alone, the
    /// queue would finish it a second time (its completion block runs twice).
    func startedAgain(after seen: State) {
        guard seen == .finished else {
            preconditionFailure("\(self) was started again while it runs: start() an operation once")
        }
        #if os(Linux)
            if !super.isFinished && !super.isExecuting {
                preconditionFailure(
                    "\(self) was started by hand while a queue held it: only its queue starts an operation in a queue")
            }
        #endif
    }
}
