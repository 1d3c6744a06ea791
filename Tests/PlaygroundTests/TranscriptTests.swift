import TestSupport
import Testing

/// The expected output in each chapter README is what the chapter really prints.
@Suite("Chapter READMEs show what the chapters print")
struct TranscriptTests {
    /// Every chapter folder, `Chapters/NN-Name` (`ChapterListTests` checks each against
    /// Package.swift's list).
    static let chapters = ChapterFolders.all

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
    func readmeMatchesOutput(chapter: ChapterFolders.Chapter) async throws {
        let expected = try Transcript.expected(chapter: chapter.executable, folder: chapter.folder)
        let printed = try await Transcript.run(chapter.executable)
        let diff = Transcript.diff(expected: expected, printed: printed)
        #expect(
            diff.isEmpty,
            "Chapters/\(chapter.folder)/README.md's output block differs from `swift run \(chapter.executable)`:\n\(diff)"
        )
    }
}
