import ChapterSupport
import Foundation
import Recording
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The recorder's canonical order, and the SVG writer: what the pictures are made of.
@Suite("Timeline pictures: recording and drawing")
struct TimelinePictureTests {
    /// Records `order` (lane index, kind) for two operations, declared in any order or not.
    static func recorded(_ order: [(Int, EventKind)], inAnyOrder: Bool) -> [Section] {
        let recorder = Recorder()
        recorder.beginSection("two at once")
        let operations = [BlockOperation(), BlockOperation()]
        operations[0].name = "resize"
        operations[1].name = "thumbnail"
        for operation in operations { recorder.register(operation) }
        if inAnyOrder { recorder.inAnyOrder(operations) }
        recorder.record(.finished, lane: "download")
        for (lane, kind) in order { recorder.record(kind, operations[lane]) }
        recorder.record(.start, lane: "upload")
        return recorder.recordedSections()
    }

    @Test("events of operations declared in any order are drawn the same whatever order they came in")
    func anyOrderIsCanonical() {
        let one: [(Int, EventKind)] = [(0, .start), (1, .start), (0, .finished), (1, .finished)]
        let other: [(Int, EventKind)] = [(1, .start), (0, .start), (1, .finished), (0, .finished)]
        let sections = Self.recorded(one, inAnyOrder: true)
        #expect(sections == Self.recorded(other, inAnyOrder: true))
        // One column per kind, sorted by lane, where the last of them came.
        #expect(
            sections[0].steps.map { $0.map(\.line) } == [
                ["download: finished"],
                ["resize: start()", "thumbnail: start()"],
                ["resize: finished", "thumbnail: finished"],
                ["upload: start()"],
            ])
        // Not declared: the order they came in is the order drawn.
        #expect(Self.recorded(one, inAnyOrder: false) != Self.recorded(other, inAnyOrder: false))
    }

    @Test("an operation's own events stay in its order, even when one of them waits for a group")
    func laneOrderSurvivesGroups() {
        // resize runs alone before thumbnail starts; only resize has a work bar.
        let early: [(Int, EventKind)] = [(0, .start), (0, .workStarted), (1, .start), (0, .finished), (1, .finished)]
        let late: [(Int, EventKind)] = [(1, .start), (0, .start), (0, .workStarted), (1, .finished), (0, .finished)]
        let sections = Self.recorded(early, inAnyOrder: true)
        #expect(sections == Self.recorded(late, inAnyOrder: true))
        #expect(
            sections[0].steps.map { $0.map(\.line) } == [
                ["download: finished"],
                ["resize: start()", "thumbnail: start()"],
                ["resize: its work starts"],
                ["resize: finished", "thumbnail: finished"],
                ["upload: start()"],
            ])
    }

    @Test("lanes: the main thread, named lanes, then operations in the order they got a lane; equal names numbered")
    func laneOrderAndNames() {
        let recorder = Recorder()
        recorder.beginSection("lanes")
        let first = BlockOperation()
        let second = BlockOperation()
        recorder.register(first)
        recorder.register(second)
        recorder.record(.start, second)
        recorder.record(.start, first)
        recorder.record(.note, lane: "worker", detail: "ran")
        #expect(recorder.recordedSections()[0].lanes == ["worker", "BlockOperation", "BlockOperation (2)"])
    }

    static let sample = Section(
        number: 3, title: "A title with <angle brackets> & \"quotes\"",
        lanes: [Section.callerLane, "download", "upload"],
        steps: [
            [Event(lane: "download", .added, by: Section.callerLane)],
            [Event(lane: "upload", .added, by: Section.callerLane)],
            [Event(lane: Section.callerLane, .waits, detail: "addOperations(_:waitUntilFinished: true)")],
            [Event(lane: "download", .start)],
            [Event(lane: "download", .executing)],
            [
                Event(
                    lane: nil, .printed,
                    detail: "a line with <xml> & 'quotes' " + String(repeating: "long ", count: 30), by: "download")
            ],
            [Event(lane: "download", .finished)],
            [Event(lane: "upload", .start, after: ["download"])],
            [Event(lane: "upload", .cancelled)],
            [Event(lane: "upload", .finished, detail: "without running its block")],
            [Event(lane: Section.callerLane, .waitReturned)],
            [Event(lane: nil, .printed, detail: "done", by: Section.callerLane)],
        ])

    @Test("a picture carries its events, which read back line for line")
    func eventsReadBack() {
        let svg = TimelinePicture.svg(chapter: "chapter7", sections: [Self.sample])
        let read = TimelineText.sections(inSVG: svg)
        #expect(read.count == 1)
        #expect(read.first?.header == "# chapter7, section 3: A title with <angle brackets> & \"quotes\"")
        #expect(read.first?.lines == TimelineText.lines(of: Self.sample))
        #expect(read.first?.lines[7] == "upload: start() after download")
        #expect(read.first.map { TimelineText.chapter(inHeader: $0.header) } == "chapter7")
    }

    @Test("a picture is well-formed, self-contained SVG with a dark style")
    func selfContained() throws {
        let svg = TimelinePicture.svg(chapter: "chapter7", sections: [Self.sample])
        for forbidden in ["<script", "<image", "@import", "href=\"http", "url(http", "<foreignObject"] {
            #expect(!svg.contains(forbidden), "the picture contains \(forbidden)")
        }
        #expect(svg.contains("@media (prefers-color-scheme: dark)"))
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "not well-formed XML: \(String(describing: parser.parserError))")
    }

    @Test(
        "light and dark: text has a contrast of at least 4.5 with the background, marks and bars 3",
        arguments: [false, true])
    func contrast(dark: Bool) throws {
        let svg = TimelinePicture.svg(chapter: "chapter7", sections: [Self.sample])
        let colours = try Self.colours(inStyleOf: svg, dark: dark)
        let background = try #require(colours[".background fill"])
        // WCAG 2's thresholds: 4.5 for text, 3 for the shapes that carry meaning.
        let text = ["text fill", ".muted fill", ".printed fill"]
        let shapes = [
            ".mark fill", ".executing fill", ".work stroke", ".queued stroke", ".suspended stroke", ".cancel stroke",
            ".dot fill", ".arrow stroke", ".arrowhead fill", ".guide stroke", ".leader stroke",
        ]
        for (names, least) in [(text, 4.5), (shapes, 3.0)] {
            for name in names {
                let colour = try #require(colours[name], "no colour for \(name)")
                let ratio = Self.contrast(colour, background)
                #expect(ratio >= least, "\(dark ? "dark" : "light"): \(name) \(colour) on \(background): \(ratio)")
            }
        }
    }

    /// The colours of the picture's style, as "selector property" → "#rrggbb": the light ones,
    /// with the dark ones over them if `dark`.
    static func colours(inStyleOf svg: String, dark: Bool) throws -> [String: String] {
        let style = try #require(svg.components(separatedBy: "<style>").last?.components(separatedBy: "</style>").first)
        let parts = style.components(separatedBy: "@media (prefers-color-scheme: dark) {")
        try #require(parts.count == 2, "the style has no dark part")
        var colours: [String: String] = [:]
        for part in dark ? parts : [parts[0]] {
            for rule in part.components(separatedBy: "}") {
                let halves = rule.components(separatedBy: "{")
                guard halves.count == 2 else { continue }
                let selector = halves[0].trimmingCharacters(in: .whitespacesAndNewlines)
                for declaration in halves[1].components(separatedBy: ";") {
                    let pair = declaration.components(separatedBy: ":").map {
                        $0.trimmingCharacters(in: .whitespacesAndNewlines)
                    }
                    if pair.count == 2, ["fill", "stroke"].contains(pair[0]), pair[1].hasPrefix("#") {
                        colours["\(selector) \(pair[0])"] = pair[1]
                    }
                }
            }
        }
        return colours
    }

    /// WCAG 2's contrast ratio of two "#rrggbb" colours, 1 to 21.
    static func contrast(_ first: String, _ second: String) -> Double {
        func luminance(_ hex: String) -> Double {
            let value = Int(hex.dropFirst(), radix: 16) ?? 0
            let channels = [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff].map { Double($0) / 255 }
            let linear = channels.map { $0 <= 0.03928 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
            return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
        }
        let (a, b) = (luminance(first), luminance(second))
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    @Test("no text runs past the picture's edges, even a printed line longer than the picture")
    func textStaysInside() throws {
        // A single picture is 830 wide; two side by side are 406 each, 18 apart.
        for (sections, panels) in [
            ([Self.sample], [0.0...830]), ([Self.sample, Self.sample], [0.0...406, 424...830]),
        ] {
            let svg = TimelinePicture.svg(chapter: "chapter7", sections: sections)
            let texts = svg.split(separator: "\n").filter { $0.hasPrefix("<text ") && !$0.contains("class=\"title\"") }
            #expect(!texts.isEmpty)
            for text in texts {
                let x = try #require(Double(attribute("x", in: text)))
                let content = text.split(separator: ">", maxSplits: 1)[1].split(separator: "<")[0]
                // Escaped characters count as one.
                let characters = String(content).replacingOccurrences(
                    of: "&[a-z]+;", with: "_", options: .regularExpression
                ).count
                let size = text.contains("class=\"label") ? 11.0 : 12.0
                let width = Double(characters) * size * 0.61
                let (left, right) = text.contains("text-anchor=\"end\"") ? (x - width, x) : (x, x + width)
                let panel = try #require(panels.first { $0.contains(x) })
                #expect(left >= panel.lowerBound && right <= panel.upperBound + 0.5, "outside its panel: \(text)")
            }
        }
    }

    @Test("two sections, the second drawn beside the first, share one file named after the first")
    func sideBySide() {
        var fixed = Self.sample
        fixed.number = 4
        fixed.title = "The fix"
        fixed.besidePrevious = true
        let pictures = TimelineFiles.pictures(of: [Self.sample, fixed], chapter: "chapter7")
        #expect(pictures.map(\.name) == ["3-a-title-with-angle-brackets-quotes.svg"])
        #expect(TimelineText.sections(inSVG: pictures[0].svg).map(\.header).last == "# chapter7, section 4: The fix")
    }

    @Test("a README's images: markdown and <img>, local or not")
    func readmeImages() {
        let readme = """
            ![the queue marks it finished](timelines/1-one.svg)
            <img src="timelines/2-two.svg" width="49%"> and ![x](../01-SyncOnly/timelines/1-one.svg "t")
            """
        #expect(
            TimelineCheck.images(inReadme: readme) == [
                "timelines/1-one.svg", "../01-SyncOnly/timelines/1-one.svg", "timelines/2-two.svg",
            ])
    }

    private func attribute(_ name: String, in element: Substring) -> String {
        guard let start = element.range(of: " \(name)=\"") else { return "" }
        return String(element[start.upperBound...].prefix { $0 != "\"" })
    }
}
