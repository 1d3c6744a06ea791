import Dispatch
import Foundation

/// Prints one line of a chapter's story at once, whichever thread it comes from.
///
/// Lines go through `print` so that they interleave correctly with what Foundation itself
/// prints to standard output; the flush makes them appear immediately even when the output
/// is a pipe (the transcript tests read it through one).
@Sendable public func say(_ line: String) {
    print(line)
    fflush(nil)  // nil: all output streams; `stdout` itself is a global var Swift 6 rejects
}

/// For a program that prints with plain `print` while a test reads its output, and that may
/// hang: standard output is then a file, which holds what is printed until its buffer fills
/// (a program that printed and then hung would look silent). A thread of its own flushes it
/// every `seconds`, so every line reaches the file.
public func flushOutputPeriodically(every seconds: Double = 0.05) {
    Thread.detachNewThread {
        while true {
            fflush(nil)  // nil: all output streams, as in say(_:)
            Thread.sleep(forTimeInterval: seconds)
        }
    }
}

/// Prints a chapter section's heading, after a blank line unless it is the first one.
/// (Main-actor isolated like the top-level code that calls it, which makes the flag safe.)
@MainActor public func heading(_ title: String) {
    if hasPrintedHeading { say("") }
    hasPrintedHeading = true
    say("== \(title)")
}

@MainActor private var hasPrintedHeading = false

/// Waits for `semaphore`, but never forever: a chapter that would hang says so and exits
/// with status 1 instead.
public func waitOrExit(_ semaphore: DispatchSemaphore, seconds: Double = 10, for what: String) {
    if semaphore.wait(timeout: .now() + seconds) == .timedOut {
        say("Gave up after \(seconds) s waiting for \(what).")
        exit(1)
    }
}

/// A result as the chapters print it: "success(…)" or "failure(…)", without the module
/// prefixes that printing a `Result` adds; "no result" for nil.
public func describe<Success, Failure>(_ result: Result<Success, Failure>?) -> String {
    switch result {
    case .success(let value)?: "success(\(value))"
    case .failure(let error)?: "failure(\(error))"
    case nil: "no result"
    }
}
