import AsyncOperations
import ChainedOperations
import Foundation
import ResultOperations
import TestSupport
import Testing

/// The web of chapter 7's tests: a short URL that redirects to an article with a title.
enum ChainedWeb {
    static let shortURL = URL(string: "https://short.example/ops")!
    static let articleURL = URL(string: "https://www.example.com/article")!
    static let web = LocalWeb(
        redirects: [shortURL: articleURL], pages: [articleURL: "<html><title>The article</title></html>"])
}

/// The failures of the test operations.
enum ChainTestFailure: ChainableFailure, CustomStringConvertible {
    case cancelled
    case missingInput
    case offline
    case input(InputProblem)

    var description: String {
        switch self {
        case .cancelled: "cancelled"
        case .missingInput: "missingInput"
        case .offline: "offline"
        case .input(let problem): "input(\(problem))"
        }
    }
}

/// An upstream operation that finishes at once with a given result, watched (`FinishWatch`):
/// its result is read at the moment its queue and dependents learn that it finished. A test
/// that checks `watch.problem` fails if the result is recorded only after that moment, when
/// a dependent that starts at once may not find it (a race its own result rarely shows).
final class Value<Output: Sendable>: AsyncResultOperation<Output, ChainTestFailure>, @unchecked Sendable {
    // @unchecked Sendable: constants only (a Sendable result, a thread-safe counter and watch).
    private let outcome: Result<Output, ChainTestFailure>
    private let released: Counter?
    let watch = FinishWatch<Output, ChainTestFailure>()

    init(_ value: Output, releasing released: Counter? = nil) {
        outcome = .success(value)
        self.released = released
    }

    init(failing failure: ChainTestFailure) {
        outcome = .failure(failure)
        released = nil
    }

    deinit { released?.increment() }

    override func main() { finish(with: outcome) }

    override var isFinished: Bool { watch.isFinished(super.isFinished, of: self) }

    #if !os(Linux)
        // NSObject's, which a subclass can override on a Mac (not on Linux, where Foundation
        // reads isFinished inside it): the watch reads isFinished just before the queue is told.
        // kvo pairs checked by hand: this override passes on the base's own didChangeValue
        // calls, each after its willChangeValue, and adds none.
        override func didChangeValue(forKey key: String) {
            watch.didChangeValue(forKey: key, of: self)
            super.didChangeValue(forKey: key)
        }
    #endif
}

/// A downstream operation that uppercases its input, and tells whether its work ran.
final class Uppercasing: ChainedAsyncResultOperation<String, String, ChainTestFailure>, @unchecked Sendable {
    // @unchecked Sendable: a Flag and a counter, both thread-safe.
    private let ran = Flag()
    private let released: Counter?
    var workRan: Bool { ran.isRaised }

    init(input: String? = nil, releasing released: Counter? = nil) {
        self.released = released
        super.init(input: input)
    }

    deinit { released?.increment() }

    override func main(with input: String) {
        ran.raise()
        finish(with: .success(input.uppercased()))
    }
}
