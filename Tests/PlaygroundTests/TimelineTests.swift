import Testing

/// The pictures in each chapter's `timelines` folder are what a real run draws, and each README
/// shows pictures of its own chapter.
@Suite("Chapter pictures are drawn from real runs")
struct TimelineTests {
    /// Every chapter folder: each README shows pictures of its run.
    static let chapters = ChapterFolders.all

    @Test("a recorded run prints what the README shows and draws the committed pictures", arguments: chapters)
    func picturesMatchARun(chapter: ChapterFolders.Chapter) async throws {
        let folder = chapter.folder
        let (printed, drawn) = try await TimelineCheck.record(chapter.executable)
        // Recording never changes what a chapter prints.
        let expected = try Transcript.expected(chapter: chapter.executable, folder: folder)
        let diff = Transcript.diff(expected: expected, printed: printed)
        #expect(diff.isEmpty, "`\(chapter.executable) --timeline` prints other lines than the README shows:\n\(diff)")

        let problems = TimelineCheck.differences(
            committed: try TimelineCheck.committed(folder: folder), drawn: drawn, folder: folder)
        #expect(problems.isEmpty, "Chapters/\(folder):\n\(problems.joined(separator: "\n"))")
    }

    @Test("the README shows pictures from its own chapter's timelines folder", arguments: chapters)
    func readmeShowsItsOwnPictures(chapter: ChapterFolders.Chapter) throws {
        let problems = try TimelineCheck.readmeProblems(chapter: chapter.executable, folder: chapter.folder)
        #expect(problems.isEmpty, "Chapters/\(chapter.folder)/README.md:\n\(problems.joined(separator: "\n"))")
    }
}
