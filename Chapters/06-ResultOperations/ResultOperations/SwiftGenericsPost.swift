import ManualState

/// The code of the blog post "Advanced Asynchronous Operations with Swift Generics" (a post on
/// modemlooper's blog, based on the operations of the Collect by WeTransfer app), under the
/// post's own names. Chapter 7 adds the post's chained operations to it.
///
/// A namespace, so that the post's `AsyncResultOperation` and `UnfurlURLOperation` keep their
/// names beside the package's own.
public enum SwiftGenericsPost {
    /// The post builds "on a standard AsyncOperation" without showing it. Here that is the
    /// base operation of "Asynchronous operations for writing concurrent solutions in Swift"
    /// (chapter 2), which the post lists among its related posts. Its `start()` prints
    /// "Starting".
    public typealias AsyncOperation = ConcurrentSolutionsPost.AsyncOperation
}
