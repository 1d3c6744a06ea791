import ManualState
import TaskOperations

// TaskOperationTests.swift belongs to another branch (the base's rewrite) and still uses the
// old name of the async/await post's generic operation. Delete this file once it says
// `AsyncAwaitPost.AsyncOperationWithTask`.
typealias PopularTaskOperation<Success> = AsyncAwaitPost.AsyncOperationWithTask<Success>
