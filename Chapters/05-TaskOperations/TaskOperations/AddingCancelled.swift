// SPDX-License-Identifier: MIT
// Copyright (c) 2026 the AsyncOperationsPlayground authors: LICENSE, at the repository's root.
import Foundation

// A shield against a Linux Foundation bug: adding an operation that is already cancelled to a
// queue with a pending barrier block deadlocks (FoundationCanaryTests'
// `cancelledAddedBehindABarrierDeadlocks`). Without it, `run(_:)` in a task cancelled already
// would cancel the operations, then add them.

/// Adds `operations` to `queue` and cancels them, the queue starting none before its cancel.
///
/// Each waits for a gate, which never opens, until it is cancelled (a cancelled operation is
/// ready whatever it depends on); then the gate is taken away. A group at a time: each cancel
/// makes a Linux queue look at every operation waiting in it, and the gated ones wait.
nonisolated func addCancelled(_ operations: [Operation], to queue: OperationQueue) {
    for group in inGroups(operations) {
        let gate = BlockOperation()
        for operation in group { operation.addDependency(gate) }
        queue.addOperations(group, waitUntilFinished: false)
        for operation in group { operation.cancel() }
        for operation in group { operation.removeDependency(gate) }
    }
}
