import AsyncOperations
import ResultOperations

// The popular hand-off between chained operations, kept for the tests: outputs travel as
// `Any?`, and an operation without an input silently takes the first dependency's output
// that casts to its input type.

/// An operation whose output the popular chain can pick up.
public protocol AnyOutputProviding {
    var anyOutput: Any? { get }
}

extension AsyncResultOperation: AnyOutputProviding {
    public var anyOutput: Any? { try? result?.get() }
}

/// A chained operation as the popular articles write it: `transform` turns the input into
/// the output.
///
/// Its bugs: the input is the first dependency's output that casts — whichever dependency
/// that is; and with no input (no such dependency, or an upstream that failed), it finishes
/// quietly with no output and no error.
public final class PopularChainedOperation<Input: Sendable, Output: Sendable>: AsyncOperation, AnyOutputProviding,
    @unchecked Sendable
{
    // @unchecked Sendable: `transform` is a constant; `state` is a Locked.
    private let transform: @Sendable (Input) -> Output
    private let state = Locked<(input: Input?, output: Output?)>((nil, nil))

    public init(input: Input? = nil, transform: @escaping @Sendable (Input) -> Output) {
        self.transform = transform
        state.withLock { $0.input = input }
    }

    public var input: Input? { state.withLock { $0.input } }
    public var output: Output? { state.withLock { $0.output } }
    public var anyOutput: Any? { output }

    public override func start() {
        state.withLock { state in
            if state.input == nil {
                // The bug: whichever dependency comes first, and nil is fine too.
                state.input = dependencies.compactMap { ($0 as? AnyOutputProviding)?.anyOutput as? Input }.first
            }
        }
        super.start()
    }

    public override func main() {
        if let input {
            let output = transform(input)
            state.withLock { $0.output = output }
        }
        finish()  // with or without an output: nobody hears about a missing input
    }
}
