/// The code of the article "OperationQueue + Asynchronous Code: Everything You Need to Know"
/// (bugorbn, HackerNoon, 2024/03/17), under the article's own names, kept with its bugs so that
/// the tests can show each one. Chapter 4's `CompletionOperation` is built on the finished base
/// instead (`AsyncOperation`, chapter 3), which fixes them.
///
/// A namespace, so that the article's `AsyncOperation` and `CompletionOperation` keep their
/// names beside the package's own. The article writes one `CompletionOperation`; the package
/// also runs it without its two `DispatchQueue.main` hops, and that version adds what sets it
/// apart to the article's name: `CompletionOperationWithoutMainQueue`.
///
/// Changed from the article, each for a reason named beside it: `open` instead of `public` (the
/// tests subclass them from another module), and `@unchecked Sendable` (Swift 6 asks every
/// Operation subclass to restate it).
public enum EverythingToKnowPost {
    /// The article's no-argument closure, and its closure of one argument, as it names them:
    /// plain closures, not `@Sendable`. Swift 6 does not force `@Sendable` on them: at the
    /// article's call site, a closure sent to `DispatchQueue.main` may call the completion (in
    /// top-level code or in a function); only a closure sent to another queue may not ("capture
    /// of 'completion' with non-Sendable type"). `Chapter4ClosureTypeTests` compiles both.
    public typealias VoidClosure = () -> Void
    public typealias Closure<T> = (T) -> Void
}
