import Foundation
import Recording

/// A recorded run's pictures: one SVG per section (two sections drawn side by side share one),
/// written into the folder named after `--timeline` when the program exits
/// (`Timeline.recordIfAsked()`).
///
/// `Scripts/draw-timelines` runs every chapter this way into its own `timelines` folder.
public enum TimelineFiles {
    /// The folder after `--timeline` on the command line; nil when the run is not recorded.
    public static let folder: String? = {
        let arguments = CommandLine.arguments
        guard let flag = arguments.firstIndex(of: "--timeline") else { return nil }
        guard flag + 1 < arguments.count else {
            FileHandle.standardError.write(Data("--timeline needs a folder: --timeline FOLDER\n".utf8))
            exit(2)
        }
        return arguments[flag + 1]
    }()

    /// The program's name: "chapter2".
    public static var chapter: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent
    }

    /// The pictures of `sections`, by file name: "2-a-dependency-waits-for-finish.svg". A section
    /// drawn beside the previous one shares the previous one's file; one without lanes has none.
    public static func pictures(of sections: [Section], chapter: String) -> [(name: String, svg: String)] {
        var groups: [[Section]] = []
        // A section with no lane (nothing reported but printed lines) has no picture: its
        // transcript says it all.
        for section in sections where section.drawn && !section.lanes.isEmpty {
            if section.besidePrevious, let last = groups.indices.last, groups[last].count == 1 {
                groups[last].append(section)
            } else {
                groups.append([section])
            }
        }
        return groups.map { group in
            ("\(group[0].number)-\(slug(group[0].title)).svg", TimelinePicture.svg(chapter: chapter, sections: group))
        }
    }

    static func write(_ sections: [Section], chapter: String, to folder: String) throws {
        let directory = URL(fileURLWithPath: folder, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for picture in pictures(of: sections, chapter: chapter) {
            try Data(picture.svg.utf8).write(to: directory.appendingPathComponent(picture.name))
        }
    }

    /// A title as a file name: lower case, words joined by "-", at most about 50 characters.
    public static func slug(_ title: String) -> String {
        var words: [String] = []
        var word = ""
        for character in title.lowercased() {
            if character.isASCII, character.isLetter || character.isNumber {
                word.append(character)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        var slug = ""
        for word in words {
            if !slug.isEmpty, slug.count + 1 + word.count > 50 { break }
            slug += (slug.isEmpty ? "" : "-") + word
        }
        return slug
    }
}
