import AsyncOperations
import CompletionOperations
import Foundation
import TestSupport
import Testing

/// The race demo of chapter 4's article (`EverythingToKnowPost`): bug 3, its base's unlocked
/// state, is a data race. It has no reliable symptom, so ThreadSanitizer shows it
/// (`Scripts/race-demos`; skipped in the normal suite, see `raceDemo`).
@Suite("Chapter 4 — race demo: the article's unlocked state (RACE_DEMOS=1, under ThreadSanitizer)", .raceDemo)
struct EverythingToKnowPostRaceDemos {
    @Test("bug 3: a callback on another thread writes the popular state while start() writes it")
    func popularStateRaces() async {
        let queue = OperationQueue()
        let operations = (0..<20).map { _ in
            // A thread of its own for the callback: ThreadSanitizer reports accesses from two
            // threads that nothing orders, and a dispatch queue might reuse start()'s thread.
            EverythingToKnowPost.CompletionOperationWithoutMainQueue { completion in
                let carried = PlainCompletion(completion)
                Thread { carried.call() }.start()
            }
        }
        queue.add(operations)
        // Bounded: with bug 1, an interleaving can leave the queue waiting for ever.
        _ = await drained(queue, within: 2)
    }
}

/// The article's completion, carried to another thread. It is a plain closure (not
/// `Sendable`): the article calls it on the main queue, and Swift 6 refuses to capture it in a
/// closure that another thread runs. Code written before Swift concurrency does that without
/// the compiler seeing; the race demo does it the same way, on purpose.
private struct PlainCompletion: @unchecked Sendable {
    // @unchecked Sendable: NOT checked. The completion sets the popular base's unlocked state
    // (bug 3); the race demo shows that race on purpose.
    private let completion: EverythingToKnowPost.VoidClosure?

    init(_ completion: EverythingToKnowPost.VoidClosure?) { self.completion = completion }

    func call() { completion?() }
}
