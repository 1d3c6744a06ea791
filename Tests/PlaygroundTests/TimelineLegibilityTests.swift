import Testing

/// What a learner would trip on in the committed pictures, checked on their SVG.
@Suite("Chapter pictures are legible")
struct TimelineLegibilityTests {
    @Test("no leader line splits a label, and no two labels overlap", arguments: TimelineTests.chapters)
    func labelsStayClear(chapter: ChapterFolders.Chapter) throws {
        let folder = chapter.folder
        var problems: [String] = []
        for picture in try TimelineCheck.committed(folder: folder) {
            let labels = Self.elements("<text class=\"label\"", in: picture.svg).compactMap { tag, text in
                Self.number("x", tag).flatMap { x in
                    Self.number("y", tag).map { y in
                        // 11 px monospace, 0.61 em a character: the drawing code's own estimate.
                        (text: text, left: x, right: x + Double(text.count) * 11 * 0.61, top: y - 9, bottom: y + 2)
                    }
                }
            }
            for (tag, _) in Self.elements("<line class=\"leader\"", in: picture.svg) {
                guard let x = Self.number("x1", tag), let y1 = Self.number("y1", tag), let y2 = Self.number("y2", tag)
                else { continue }
                for label in labels
                where x > label.left + 1 && x < label.right - 1 && label.top < y2 && label.bottom > y1 {
                    // Behind a letter, the label's halo hides the leader; between two words it
                    // shows, and splits the label ("isSuspended = | false").
                    let characters = Array(label.text)
                    let index = Int((x - label.left) / (11 * 0.61))
                    let near = characters[max(0, index - 1)...min(characters.count - 1, index + 1)]
                    if near.contains(" ") {
                        problems.append("\(picture.name): a leader at x = \(x) splits \"\(label.text)\"")
                    }
                }
            }
            for (index, first) in labels.enumerated() {
                for second in labels[(index + 1)...]
                where first.top < second.bottom && second.top < first.bottom && first.left < second.right
                    && second.left < first.right
                {
                    problems.append("\(picture.name): \"\(first.text)\" and \"\(second.text)\" overlap")
                }
            }
        }
        #expect(problems.isEmpty, "Chapters/\(folder):\n\(problems.joined(separator: "\n"))")
    }

    /// The opening tags that begin with `start`, each with the text up to the next `<`.
    static func elements(_ start: String, in svg: String) -> [(tag: String, text: String)] {
        svg.components(separatedBy: start).dropFirst().map { rest in
            let tag = rest.prefix { $0 != ">" }
            let text = rest.dropFirst(tag.count + 1).prefix { $0 != "<" }
            return (String(tag), String(text))
        }
    }

    /// The value of the attribute `name` in `tag`, as a number.
    static func number(_ name: String, _ tag: String) -> Double? {
        guard let range = tag.range(of: " \(name)=\"") else { return nil }
        return Double(tag[range.upperBound...].prefix { $0 != "\"" })
    }
}
