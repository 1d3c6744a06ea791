// SPDX-License-Identifier: MIT
// Copyright (c) 2026 the AsyncOperationsPlayground authors: LICENSE, at the repository's root.
import Foundation

/// An operation that ends with a `Result`.
///
/// Chapter 5's `TaskOperation` and chapter 6's `AsyncResultOperation` both are; chapter 5's
/// `value(of:)` awaits one, and chapter 7 chains them.
nonisolated public protocol ResultProducing<Success>: Operation {
    /// The value the operation produces when it succeeds.
    associatedtype Success: Sendable
    /// The error it ends with otherwise; a cancelled operation's failure among them.
    associatedtype Failure: Error

    /// The result once the operation has finished; nil before, even while it is finishing.
    ///
    /// Never nil once finished, and a `.failure` whenever `isCancelled` is true.
    var result: Result<Success, Failure>? { get }
}

nonisolated extension ResultProducing {
    /// The result with its failure type erased: what chapter 7's chaining reads.
    public var outputResult: Result<Success, any Error>? {
        result?.mapError { $0 }
    }
}
