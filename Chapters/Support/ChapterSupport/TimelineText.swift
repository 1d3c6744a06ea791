import Foundation
import Recording

/// The events a picture was drawn from, as text: one line per event, in the order drawn.
///
/// ```
/// # chapter2, section 1: The delayed print, now on ManualStateOperation
/// main thread: waits (addOperations(waitUntilFinished: true))
/// DelayedPrintOperation: start()
/// & resize: start()        <- "&": in the same column as the line above, in any order
/// printed: Starting
/// ```
/// A picture carries this text in its `<desc>`: screen readers read it, and the tests compare
/// it with a new run.
public enum TimelineText {
    /// One section's header line: which chapter and section the events are of.
    public static func header(chapter: String, section: Section) -> String {
        "# \(chapter), section \(section.number): \(section.title)"
    }

    /// The header and event lines of each section, the sections separated by an empty line.
    public static func description(chapter: String, sections: [Section]) -> String {
        sections.map { section in
            ([header(chapter: chapter, section: section)] + lines(of: section)).joined(separator: "\n")
        }.joined(separator: "\n\n")
    }

    /// One line per event; an event drawn in the same column as the one before starts with "& ".
    public static func lines(of section: Section) -> [String] {
        section.steps.flatMap { step in
            step.enumerated().map { index, event in (index == 0 ? "" : "& ") + event.line }
        }
    }

    /// What a picture's `<desc>` says, read back: for each section, its header and event lines.
    public static func sections(inSVG svg: String) -> [(header: String, lines: [String])] {
        guard let start = svg.range(of: "<desc id=\"desc\">"),
            let end = svg.range(of: "</desc>", range: start.upperBound..<svg.endIndex)
        else { return [] }
        let text = unescaped(String(svg[start.upperBound..<end.lowerBound]))
        var result: [(header: String, lines: [String])] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) {
            if line.hasPrefix("# ") {
                result.append((line, []))
            } else if !result.isEmpty {
                result[result.count - 1].lines.append(line)
            }
        }
        return result
    }

    /// The chapter a header line names: "chapter2" in "# chapter2, section 1: …".
    public static func chapter(inHeader header: String) -> String? {
        guard header.hasPrefix("# "), let comma = header.firstIndex(of: ",") else { return nil }
        return String(header[header.index(header.startIndex, offsetBy: 2)..<comma])
    }

    private static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
