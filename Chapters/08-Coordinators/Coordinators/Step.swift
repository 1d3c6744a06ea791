// The two algorithms behind every callback-based type of this chapter, `SerialRun` and
// `ConcurrentRun`, run steps. A coordinator, an item operation and a batch operation differ
// only in what one "step" is (an operation, an item, a batch); how steps are run one after the
// other or all at once, and how their errors are collected, is written once, in those two.

/// What a step reports when it is done: nil, or the error it failed with.
typealias StepCompletion = @Sendable ((any Error)?) -> Void

/// Starts the step with the given index; the step calls the completion when it is done.
typealias Step = @Sendable (_ index: Int, _ completion: @escaping StepCompletion) -> Void
