import CoordinatingPost
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc  // SIGSEGV (not Foundation: `Operation` stays the article's here)
#elseif canImport(Darwin)
    import Darwin
#endif

// The test doubles of the article's own code ("Coordinating async operations", module
// CoordinatingPost), shared by Chapter8ArticleTests and Chapter8FinalCodeTests. This file imports
// the article's module and not Foundation, so `Operation` is the article's protocol here, as in
// the article. The tests call every completion themselves, on the test's thread, in the order
// they choose; nothing is timed.

/// The article's `MyOperation`, as written: it completes at once, without an error.
class MyOperation: Operation {
    func perform(completion: @escaping (Error?) -> Void) {
        completion(nil)
    }
}

/// An operation whose completion the test calls itself.
final class HeldPostOperation: Operation {
    let id: Int
    let fails: Bool
    /// One completion per time it was performed, not called yet.
    private var completions: [OperationCompletion] = []
    private(set) var performed = 0

    init(id: Int, fails: Bool = false) {
        self.id = id
        self.fails = fails
    }

    func perform(completion: @escaping OperationCompletion) {
        performed += 1
        completions.append(completion)
    }

    /// Calls every completion it holds, once each, in the order it was given them.
    func complete() {
        let held = completions
        completions = []
        for completion in held { completion(fails ? TestFailure(id: id) : nil) }
    }
}

/// An operation that fails and, wrongly, calls its completion twice.
final class CallsBackTwice: Operation {
    let id: Int

    init(id: Int) { self.id = id }

    func perform(completion: @escaping OperationCompletion) {
        completion(TestFailure(id: id))
        completion(TestFailure(id: id))
    }
}

/// Every call of a coordinator's completion: the ids of its errors.
final class Calls {
    var errorIDs: [[Int]] = []

    func record(_ errors: [Error]) { errorIDs.append(failureIDs(errors)) }
}

#if os(macOS) || os(Linux)
    /// How a stack overflow ends an exit test's child process.
    enum StackOverflow {
        /// Linux: SIGSEGV, the guard page below the stack (verified here) — unless the tests
        /// run under AddressSanitizer (CI does), which catches the fault itself, reports a
        /// "stack-overflow" and exits with 1. Darwin: expected to be a signal too, SIGSEGV or
        /// SIGBUS depending on how the guard page is hit (inferred, not yet run on a Mac), so
        /// any failure counts there.
        static var ending: ExitTest.Condition {
            #if os(Linux)
                Sanitizer.address ? .failure : .signal(SIGSEGV)
            #else
                .failure
            #endif
        }

        /// Under AddressSanitizer, the child's report must name the stack overflow.
        static func checkReport(of result: ExitTest.Result?) {
            guard Sanitizer.address, let result else { return }
            let report = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(report.contains("stack-overflow"), "the child's report: \(report.suffix(500))")
        }

        /// Measured here (Linux, 2 cores, loaded): under ThreadSanitizer the child takes about
        /// 6 s to die of the overflow, and the other tests of the run made no progress until it
        /// had; with both overflow tests, that pause outlasted their 20 s bounds. The tests have
        /// no shared state for ThreadSanitizer to check, and run in the plain and
        /// AddressSanitizer builds.
        static let whyNotUnderThreadSanitizer: Comment =
            "under ThreadSanitizer a stack-overflowing child takes seconds to die and stalls the run"
    }
#endif
