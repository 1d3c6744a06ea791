import AsyncOperations
import CompletionOperations
import Dispatch
import Foundation
import ManualState
import OperationContract
import ResultOperations
import SyncOnly
import TaskOperations

/// Every version of an asynchronous operation that the chapters run, as the kit checks it.
///
/// The articles' popular versions and the package's own bases: each row of the table in
/// `CheckedVersions.md` (the kit's documentation) is one of them, named by `label`.
///
/// Each is wrapped around the kit's work the way an app developer would: through its own
/// API, or with a subclass that runs the work from `main()`, finishes when it calls back,
/// and — where the class itself offers no way to stop its work — stops it from `cancel()`
/// after the cancellation is recorded (the order chapter 3 teaches), so that only the
/// class's own behaviour is judged. The one exception is the row about the order itself.
public enum CheckedVersion: String, CaseIterable, Sendable {
    case syncOnly, concurrentSolutionsBase, asyncAwaitBase, manualState, fileUploadCancel, everythingToKnowBase,
        asyncAwaitTask
    case swiftGenericsResult, asyncOperation, completionOperation, taskOperation, asyncResultOperation

    /// The version's name in the table's first column.
    public var label: String {
        switch self {
        case .syncOnly: "`SyncOnlyOperation`"
        case .concurrentSolutionsBase: "`ConcurrentSolutionsPost.AsyncOperation`"
        case .asyncAwaitBase: "`AsyncAwaitPost.AsyncOperation`"
        case .manualState: "`ManualStateOperation`"
        case .fileUploadCancel: "`FileUploadOperation`'s `cancel()`"
        case .everythingToKnowBase: "`EverythingToKnowPost.AsyncOperation`"
        case .asyncAwaitTask: "`AsyncAwaitPost.AsyncOperationWithTask`"
        case .swiftGenericsResult: "`SwiftGenericsPost.AsyncResultOperation`"
        case .asyncOperation: "`AsyncOperation`"
        case .completionOperation: "`CompletionOperation`"
        case .taskOperation: "`TaskOperation`"
        case .asyncResultOperation: "`AsyncResultOperation`"
        }
    }

    /// Whether a run under ThreadSanitizer reports a data race of the version's own.
    ///
    /// The article's state without a lock (chapter 4's bug 3), the article's unlocked `result`
    /// (chapter 5). `Scripts/race-demos` shows those races; the table's tests skip these rows
    /// under ThreadSanitizer.
    public var racesByDesign: Bool { self == .everythingToKnowBase || self == .asyncAwaitTask }

    /// Runs the kit on the version, waiting `patience` seconds at most for what a correct
    /// operation does at once.
    public func check(clauses: [ContractClause] = ContractClause.allCases, patience: Double = 2) async
        -> ContractReport
    {
        switch self {
        case .syncOnly:
            // Its work is a closure that main() schedules; it has no way to say the work ended.
            await checkContract(clauses: clauses, patience: patience) { work in
                SyncOnlyOperation(after: .seconds(0), work: { work.start(then: {}) })
            }
        case .concurrentSolutionsBase:
            await checkContract(clauses: clauses, patience: patience) { ConcurrentSolutionsBaseChecked($0) }
        case .asyncAwaitBase: await checkContract(clauses: clauses, patience: patience) { AsyncAwaitBaseChecked($0) }
        case .manualState: await checkContract(clauses: clauses, patience: patience) { ManualStateChecked($0) }
        case .fileUploadCancel:
            await checkContract(clauses: clauses, patience: patience) { FileUploadCancelChecked($0) }
        case .everythingToKnowBase:
            await checkContract(clauses: clauses, patience: patience) { EverythingToKnowBaseChecked($0) }
        case .asyncAwaitTask:
            await checkContract(clauses: clauses, patience: patience, result: \.resultForTheKit) { work in
                AsyncAwaitPost.AsyncOperationWithTask { await work.run() }
            }
        case .swiftGenericsResult:
            await checkContract(clauses: clauses, patience: patience, result: \.result) {
                SwiftGenericsResultChecked($0)
            }
        case .asyncOperation: await checkContract(clauses: clauses, patience: patience) { AsyncOperationChecked($0) }
        case .completionOperation:
            await checkContract(clauses: clauses, patience: patience) { work in
                CompletionOperation(stoppable: { complete, onCancel in
                    onCancel { work.stop() }
                    work.start(then: complete)
                })
            }
        case .taskOperation:
            await checkContract(clauses: clauses, patience: patience, result: \.result) { work in
                TaskOperation { await work.run() }
            }
        case .asyncResultOperation:
            await checkContract(clauses: clauses, patience: patience, result: \.result) { AsyncResultChecked($0) }
        }
    }
}

/// Chapter 2: the base of "Asynchronous operations for writing concurrent solutions in Swift".
final class ConcurrentSolutionsBaseChecked: ConcurrentSolutionsPost.AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to the post's base.
    private let work: ContractWork
    init(_ work: ContractWork) { self.work = work }
    override func main() { work.start { self.finish() } }
    override func cancel() {
        super.cancel()
        work.stop()
    }
}

/// Chapter 3: the same base, with the post's `FileUploadOperation.cancel()` order — the task is
/// stopped first, then `super.cancel()` — and the kit's work in place of the upload task (with
/// the `resume()` the post leaves out, which chapter 3 shows apart).
final class FileUploadCancelChecked: ConcurrentSolutionsPost.AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to the post's base.
    private let work: ContractWork
    init(_ work: ContractWork) { self.work = work }
    override func main() { work.start { self.finish() } }
    override func cancel() {
        work.stop()
        super.cancel()
    }
}

/// Chapter 2: the base of "Asynchronous Operations with Async/Await".
final class AsyncAwaitBaseChecked: AsyncAwaitPost.AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to the post's base.
    private let work: ContractWork
    init(_ work: ContractWork) { self.work = work }
    override func main() { work.start { self.finish() } }
    override func cancel() {
        super.cancel()
        work.stop()
    }
}

/// Chapter 2: the package's first version, which does not handle cancellation yet.
final class ManualStateChecked: ManualStateOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to a thread-safe base.
    private let work: ContractWork
    init(_ work: ContractWork) { self.work = work }
    override func main() { work.start { self.finish() } }
    override func cancel() {
        super.cancel()
        work.stop()
    }
}

/// Chapter 4: the article's state-enum base, with its `CompletionOperation`'s `main()` (without
/// the main-queue hops, as `EverythingToKnowPost.CompletionOperationWithoutMainQueue`: the article's closure types are not
/// `Sendable`, so a subclass runs the kit's work instead of a closure).
final class EverythingToKnowBaseChecked: EverythingToKnowPost.AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds a constant to the article's base, which has no lock (its bug 3).
    private let work: ContractWork
    init(_ work: ContractWork) { self.work = work }
    override func main() { work.start { [weak self] in self?.state = .finished } }
    override func cancel() {
        super.cancel()
        work.stop()
    }
}

/// Chapter 6: the post's result operation, with its `UnfurlURLOperation`'s `cancel()`: the task
/// first, then `cancel(with:)`.
final class SwiftGenericsResultChecked: SwiftGenericsPost.AsyncResultOperation<Int, ContractFailure>,
    @unchecked Sendable
{
    // @unchecked Sendable: adds only a constant to the post's thread-safe operation.
    private let work: ContractWork
    init(_ work: ContractWork) { self.work = work }
    override func main() { work.start { self.finish(with: .success(1)) } }
    override func cancel() {
        work.stop()
        cancel(with: .cancelled)
    }
}

/// Chapter 3: the package's finished base, with `onCancel(_:)`.
final class AsyncOperationChecked: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to a thread-safe base.
    private let work: ContractWork
    init(_ work: ContractWork) { self.work = work }
    override func main() {
        onCancel { [work] in work.stop() }
        work.start { self.finish() }
    }
}

/// Chapter 6: the package's result operation.
final class AsyncResultChecked: AsyncResultOperation<Int, ContractFailure>, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to a thread-safe base.
    private let work: ContractWork
    init(_ work: ContractWork) { self.work = work }
    override func main() {
        onCancel { [work] in work.stop() }
        work.start { self.finish(with: .success(1)) }
    }
}

/// The failure of the result operations above.
public enum ContractFailure: CancellableFailure {
    case cancelled
}

extension AsyncAwaitPost.AsyncOperationWithTask {
    /// The article's `getResult()`, as a property: the kit reads a result through a key path.
    public var resultForTheKit: Result<Success, any Error>? { getResult() }
}
