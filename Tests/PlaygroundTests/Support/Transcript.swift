import Foundation
import TestSupport
import Testing

/// Each chapter's expected output is written once, in its README, in the fenced block that
/// follows the line `<!-- transcript: chapterN -->`. These helpers read that block and run
/// the real executable, so that the README cannot drift from what the chapter prints.
enum Transcript {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // PlaygroundTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The lines of the transcript block in the README of the chapter folder `folder`.
    static func expected(chapter: String, folder: String) throws -> [String] {
        let readme = packageRoot.appendingPathComponent("Chapters/\(folder)/README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let marker = "<!-- transcript: \(chapter) -->"
        guard let markerIndex = lines.firstIndex(of: marker),
            markerIndex + 1 < lines.count, lines[markerIndex + 1].hasPrefix("```"),
            let end = lines[(markerIndex + 2)...].firstIndex(of: "```")
        else {
            throw TranscriptError("\(readme.path) has no fenced block right after \(marker)")
        }
        return Array(lines[(markerIndex + 2)..<end])
    }

    /// Runs the chapter's executable, unpaced, with `arguments`, and returns the lines it printed.
    static func run(_ chapter: String, arguments: [String] = [], within seconds: Double = 30) async throws -> [String] {
        #if os(macOS) || os(Linux)
            let child = try ChildProcess(chapter, arguments: arguments, environment: ["CHAPTER_PACING": "0"])
            guard await child.exits(within: seconds) else {
                child.terminate()
                throw TranscriptError("\(chapter) did not exit within \(seconds) s")
            }
            guard let status = child.status, status == 0 else {
                throw TranscriptError("\(chapter) exited with status \(child.status ?? -1): \(child.errorOutput)")
            }
            return child.printedLines
        #else
            // Process exists only on macOS and Linux (and Windows); iOS runs no executables.
            throw TranscriptError("the transcript check runs executables: macOS or Linux only")
        #endif
    }
}

struct TranscriptError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
