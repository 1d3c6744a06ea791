import ChapterSupport
import Foundation

/// The pictures in each chapter's `timelines` folder, and what the README shows of them.
enum TimelineCheck {
    /// A picture file: its name and its text.
    struct Picture {
        let name: String
        let svg: String
        var sections: [(header: String, lines: [String])] { TimelineText.sections(inSVG: svg) }
    }

    /// The committed pictures of the chapter folder `folder`, by file name.
    static func committed(folder: String) throws -> [Picture] {
        try pictures(in: Transcript.packageRoot.appendingPathComponent("Chapters/\(folder)/timelines"))
    }

    /// The SVG files in `directory`, sorted by name; none if it does not exist.
    static func pictures(in directory: URL) throws -> [Picture] {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".svg") }
            .sorted()
            .map {
                Picture(name: $0, svg: try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8))
            }
    }

    /// Runs `chapter` recorded (`--timeline`), and returns what it printed and the pictures it drew.
    static func record(_ chapter: String) async throws -> (printed: [String], pictures: [Picture]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timelines-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let printed = try await Transcript.run(chapter, arguments: ["--timeline", folder.path])
        return (printed, try pictures(in: folder))
    }

    /// How `committed` differs from `drawn`, the pictures of a new run, in words; empty if the
    /// same. Events first, as a line diff per section: a picture whose events differ shows
    /// something the code does not do.
    static func differences(committed: [Picture], drawn: [Picture], folder: String) -> [String] {
        var problems: [String] = []
        let committedNames = Set(committed.map(\.name))
        let drawnNames = Set(drawn.map(\.name))
        for name in committedNames.subtracting(drawnNames).sorted() {
            problems.append("timelines/\(name): no section of the run draws it (a section was renamed or removed)")
        }
        for name in drawnNames.subtracting(committedNames).sorted() {
            problems.append("timelines/\(name): the run draws it, but it is not committed")
        }
        for picture in committed where drawnNames.contains(picture.name) {
            let new = drawn.first { $0.name == picture.name }!
            let old = picture.sections
            let now = new.sections
            var eventDiffs: [String] = []
            for index in 0..<max(old.count, now.count) {
                let expected = index < old.count ? [old[index].header] + old[index].lines : []
                let recorded = index < now.count ? [now[index].header] + now[index].lines : []
                let diff = Transcript.diff(expected: expected, printed: recorded, names: ("picture", "run"))
                if !diff.isEmpty { eventDiffs.append(diff) }
            }
            if !eventDiffs.isEmpty {
                problems.append(
                    "timelines/\(picture.name) shows other events than a real run has:\n"
                        + eventDiffs.joined(separator: "\n"))
            } else if picture.svg != new.svg {
                problems.append("timelines/\(picture.name): same events, drawn differently (the drawing code changed)")
            }
        }
        if !problems.isEmpty {
            problems.append("Run Scripts/draw-timelines to draw them again from a real run, and look at them.")
        }
        return problems
    }

    /// The images a README shows: the targets of `![…](…)` and `<img src="…">`.
    static func images(inReadme text: String) -> [String] {
        var targets: [String] = []
        var rest = Substring(text)
        while let open = rest.range(of: "![") {
            rest = rest[open.upperBound...]
            guard let middle = rest.range(of: "]("), let close = rest[middle.upperBound...].firstIndex(of: ")") else {
                break
            }
            targets.append(String(rest[middle.upperBound..<close]).split(separator: " ").first.map(String.init) ?? "")
            rest = rest[close...]
        }
        rest = Substring(text)
        while let tag = rest.range(of: "<img") {
            rest = rest[tag.upperBound...]
            guard let src = rest.range(of: "src=\""), let end = rest[src.upperBound...].firstIndex(of: "\"") else {
                break
            }
            targets.append(String(rest[src.upperBound..<end]))
            rest = rest[end...]
        }
        return targets
    }

    /// What is wrong with the images the README of `folder` shows, in words; empty if nothing.
    /// Each must be a picture in the chapter's own `timelines` folder, of this chapter, and each
    /// picture there must be shown.
    static func readmeProblems(chapter: String, folder: String) throws -> [String] {
        let readme = Transcript.packageRoot.appendingPathComponent("Chapters/\(folder)/README.md")
        let images = images(inReadme: try String(contentsOf: readme, encoding: .utf8))
        var problems: [String] = []
        if images.isEmpty { problems.append("the README shows no picture of the chapter's run") }
        for image in images {
            let parts = image.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "timelines", parts[1].hasSuffix(".svg") else {
                problems.append("\(image): not a picture in this chapter's timelines folder (timelines/NAME.svg)")
                continue
            }
            let file = readme.deletingLastPathComponent().appendingPathComponent(image)
            guard let svg = try? String(contentsOf: file, encoding: .utf8) else {
                problems.append("\(image): no such file")
                continue
            }
            let headers = TimelineText.sections(inSVG: svg).map(\.header)
            if headers.isEmpty { problems.append("\(image): carries no events (not drawn by Scripts/draw-timelines)") }
            for header in headers where TimelineText.chapter(inHeader: header) != chapter {
                problems.append("\(image) is a picture of another chapter: \(header)")
            }
        }
        for picture in try committed(folder: folder) where !images.contains("timelines/\(picture.name)") {
            problems.append(
                "timelines/\(picture.name): shown nowhere; show it where the text explains it, or draw it no "
                    + "more (heading(_:drawn: false))")
        }
        return problems
    }
}
