import AsyncOperations
import Foundation

/// An operation that takes its input from an `OutputProviding` operation.
public protocol InputTaking<Input>: Operation {
    associatedtype Input: Sendable
    /// Makes `upstream` the source of this operation's input, and a dependency.
    func takeInput(from upstream: any OutputProviding<Input>)
}
