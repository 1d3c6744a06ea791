import Dispatch

/// Lets work through one step at a time: the work waits at `awaitTurn()`, the driver lets one
/// step through with `advance()` and returns once the work has said where it got to.
///
/// It makes every order in this chapter caused: the chapter (or a test) decides when the next
/// step runs and knows when it has run, so no sleep decides what is printed.
public final class Turnstile: Sendable {
    private let turns = DispatchSemaphore(value: 0)
    private let acknowledgements = DispatchSemaphore(value: 0)
    private let seconds: Double

    /// - Parameter seconds: how long either side waits before it gives up (a bounded wait,
    ///   so that a mistake fails instead of hanging).
    public init(timeout seconds: Double = 10) {
        self.seconds = seconds
    }

    /// Lets one step through and waits until the work acknowledges it. False if it did not
    /// within the timeout. A blocking wait: call it from synchronous code, never from `async`.
    @discardableResult
    public func advance() -> Bool {
        turns.signal()
        return waitForAcknowledgement()
    }

    /// Waits for the work's next acknowledgement without letting another step through.
    @discardableResult
    public func waitForAcknowledgement() -> Bool {
        acknowledgements.wait(timeout: .now() + seconds) == .success
    }

    /// The work's side: waits for the driver's next `advance()`. False after the timeout.
    public func awaitTurn() -> Bool {
        turns.wait(timeout: .now() + seconds) == .success
    }

    /// The work's side: tells the driver where it got to.
    public func acknowledge() {
        acknowledgements.signal()
    }
}
