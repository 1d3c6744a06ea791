/// The code of the blog post "Asynchronous Operations with Async/Await", under the post's own
/// names.
///
/// A namespace, so that the post's `AsyncOperation` keeps its name beside the package's own
/// `AsyncOperation` (chapter 3) and the other post's (`ConcurrentSolutionsPost`). The post writes
/// `AsyncOperation` three times: the first, broken one is chapter 1's `SyncOnlyOperation`; its
/// lock-queue base keeps the name (here); and its generic `AsyncOperation<Success>`, which runs
/// a task, adds what sets it apart: `AsyncOperationWithTask<Success>` (chapter 5).
public enum AsyncAwaitPost {}
