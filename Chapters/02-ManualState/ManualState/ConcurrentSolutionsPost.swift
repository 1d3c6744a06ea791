/// The code of the blog post "Asynchronous operations for writing concurrent solutions in
/// Swift" (as onlinecode publishes it), under the post's own names.
///
/// A namespace, so that the post's `AsyncOperation` keeps its name beside the package's own
/// `AsyncOperation` (chapter 3). The post writes `AsyncOperation` three times: the first, broken
/// one is chapter 1's `SyncOnlyOperation`; the middle one, with its example `main()`, is
/// `AsyncOperationWithExample`; the final one keeps the name. Chapter 3 adds the post's
/// `FileUploadOperation`.
public enum ConcurrentSolutionsPost {}
