import Dispatch
import Foundation
import Recording

/// Prints one line of a chapter's story at once, whichever thread it comes from.
///
/// Lines go through `print` so that they interleave correctly with what Foundation itself
/// prints to standard output; the flush makes them appear immediately even when the output
/// is a pipe (the transcript tests read it through one). When the run is recorded
/// (`Timeline.recordIfAsked()`), the recording notes the line too, with the lane of the code
/// that printed it.
@Sendable public func say(_ line: String) {
    if let recorder = Recorder.current {
        recorder.printed(line)
    } else {
        printLine(line)
    }
}

@Sendable private func printLine(_ line: String) {
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

/// Prints a chapter section's heading, after a blank line unless it is the first one. When the
/// run is recorded, what follows is the section's picture; with `besidePrevious`, it is drawn
/// beside the previous section's (a popular version, then its fix); with `drawn: false`, it has
/// none (its order depends on timing somewhere, so no picture could be the same on every run).
/// (Main-actor isolated like the top-level code that calls it, which makes the flag safe.)
@MainActor public func heading(_ title: String, besidePrevious: Bool = false, drawn: Bool = true) {
    let lines = (hasPrintedHeading ? [""] : []) + ["== \(title)"]
    hasPrintedHeading = true
    guard let recorder = Recorder.current else { return lines.forEach(printLine) }
    // Not printed lines of a section: its title.
    for line in lines { recorder.printed(line, recorded: false) }
    recorder.beginSection(title, besidePrevious: besidePrevious, drawn: drawn)
}

@MainActor private var hasPrintedHeading = false

/// Waits for `semaphore`, but never forever: a chapter that would hang says so and exits
/// with status 1 instead.
public func waitOrExit(_ semaphore: DispatchSemaphore, seconds: Double = 10, for what: String) {
    if semaphore.wait(timeout: .now() + seconds) == .timedOut {
        say("Gave up after \(seconds) s waiting for \(what).")
        exit(1)
    }
    // Not recorded: the code that signals may go on doing things (an operation finishing) in
    // any order with what this thread does next, so the return has no caused place in a picture.
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
