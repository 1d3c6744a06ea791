import TestSupport
import Testing

/// The expected output in each chapter README is what the chapter really prints.
@Suite("Chapter READMEs show what the chapters print")
struct TranscriptTests {
    static let chapters = [
        ("chapter0", "00-OperationBasics"),
        ("chapter1", "01-SyncOnly"),
        ("chapter2", "02-ManualState"),
        ("chapter3", "03-Cancellation"),
        ("chapter4", "04-CompletionOperations"),
        ("chapter5", "05-TaskOperations"),
        ("chapter6", "06-ResultOperations"),
        ("chapter7", "07-ChainedOperations"),
        ("chapter8", "08-Coordinators"),
        ("chapter9", "09-ProgressSuspendPriority"),
        ("chapter10", "10-StructuredConcurrency"),
    ]

    @Test("a changed line shows as one line of each side, with its line number")
    func diffShowsChangedLine() {
        let expected = ["== Title", "Starting", "Executing", "Finished"]
        let printed = ["== Title", "Starting", "Executed", "Finished"]
        #expect(
            Transcript.diff(expected: expected, printed: printed)
                == "+ printed line 3:  Executed\n- expected line 3: Executing")
        #expect(Transcript.diff(expected: expected, printed: expected).isEmpty)
        #expect(Transcript.diff(expected: expected, printed: expected.dropLast() + []) == "- expected line 4: Finished")
    }

    @Test("README output block equals the chapter's output", arguments: chapters)
    func readmeMatchesOutput(chapter: String, folder: String) async throws {
        let expected = try Transcript.expected(chapter: chapter, folder: folder)
        let printed = try await Transcript.run(chapter)
        let diff = Transcript.diff(expected: expected, printed: printed)
        #expect(
            diff.isEmpty,
            "Chapters/\(folder)/README.md's output block differs from `swift run \(chapter)`:\n\(diff)")
    }
}
