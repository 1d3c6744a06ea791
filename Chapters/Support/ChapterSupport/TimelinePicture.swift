import Recording

/// Draws recorded sections as a self-contained SVG: no script, no external font or image.
///
/// One lane per operation (and one for the main thread); its states as bars along the lane;
/// events as labelled marks; dependencies and resumptions as arrows; the printed lines below,
/// each at the column where it was printed. The horizontal axis is the order of events — one
/// column per step — never time, so the same run always gives the same picture.
///
/// The picture carries the events it was drawn from, one per line, in its `<desc>` (see
/// `TimelineText`): the tests read them back and compare them with a new run.
public enum TimelinePicture {
    /// The width GitHub gives a README's images, about: a single picture is drawn at it.
    public static let width = 830.0

    /// The SVG for one section, or for two drawn side by side (a popular version and its fix).
    public static func svg(chapter: String, sections: [Section]) -> String {
        precondition((1...2).contains(sections.count), "a picture shows one section, or two side by side")
        let gap = 18.0
        let panelWidth = sections.count == 1 ? width : (width - gap) / 2
        let panels = sections.enumerated().map { index, section in
            Panel(chapter: chapter, section: section, width: panelWidth, x: Double(index) * (panelWidth + gap))
        }
        let height = (panels.map(\.height).max() ?? 0).rounded(.up)
        let title = sections.map { "\(chapterTitle(chapter)): \($0.title)" }.joined(separator: " | ")
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(number(width))" height="\(number(height))" \
            viewBox="0 0 \(number(width)) \(number(height))" role="img" aria-labelledby="title desc">
            <title id="title">\(escaped(title))</title>
            <desc id="desc">
            \(escaped(TimelineText.description(chapter: chapter, sections: sections)))
            </desc>
            \(style)
            \(definitions)
            <rect class="background" x="0" y="0" width="\(number(width))" height="\(number(height))" rx="8"/>

            """
        for panel in panels { svg += panel.body }
        svg += "</svg>\n"
        return svg
    }

    /// "chapter4" reads "Chapter 4".
    static func chapterTitle(_ chapter: String) -> String {
        chapter.hasPrefix("chapter") ? "Chapter " + chapter.dropFirst("chapter".count) : chapter
    }

    // Light colours first; the dark ones replace them when the reader's system is dark. The
    // background is drawn, not transparent, so that the text stays legible whichever of the two
    // the page and the picture pick.
    static let style = """
        <style>
        .background { fill: #ffffff; }
        text { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; fill: #1f2328; }
        .title { font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Helvetica, Arial, sans-serif; font-size: 15px; font-weight: 600; }
        .lane-name { font-size: 12px; font-weight: 600; }
        .label { font-size: 11px; stroke: #ffffff; stroke-width: 3px; stroke-linejoin: round; paint-order: stroke; }
        .muted { fill: #59636e; }
        .printed { font-size: 12px; fill: #1a5e2a; }
        .rule { stroke: #d1d9e0; stroke-width: 1; }
        .guide { stroke: #8c959f; stroke-width: 0.8; stroke-dasharray: 1 3; }
        .queued { fill: none; stroke: #8c959f; stroke-width: 1.2; stroke-dasharray: 3 2; }
        .executing { fill: #2f81f7; }
        .work { fill: url(#work); stroke: #9a6700; stroke-width: 0.8; }
        .blocked { fill: url(#blocked); stroke: #8c959f; stroke-width: 0.8; }
        .suspended { fill: none; stroke: #8250df; stroke-width: 1.2; stroke-dasharray: 4 2; }
        .work-stripe { stroke: #bf8700; stroke-width: 2; }
        .blocked-stripe { stroke: #afb8c1; stroke-width: 2; }
        .mark { fill: #1f2328; }
        .cancel { stroke: #cf222e; stroke-width: 2.2; stroke-linecap: round; }
        .cancel-halo { stroke: #ffffff; stroke-width: 5; stroke-linecap: round; }
        .dot { fill: #1a7f37; }
        .on-lane { stroke: #ffffff; stroke-width: 1.5; }
        .arrow { fill: none; stroke: #8250df; stroke-width: 1.4; }
        .arrowhead { fill: #8250df; }
        .group { fill: #8250df; fill-opacity: 0.08; stroke: #8250df; stroke-opacity: 0.35; stroke-dasharray: 2 2; }
        .leader { stroke: #8c959f; stroke-width: 0.8; }
        @media (prefers-color-scheme: dark) {
        .background { fill: #0d1117; }
        .label { stroke: #0d1117; }
        text { fill: #e6edf3; }
        .muted { fill: #9198a1; }
        .printed { fill: #7ee787; }
        .rule { stroke: #30363d; }
        .guide { stroke: #6e7681; }
        .queued { stroke: #9198a1; }
        .executing { fill: #4493f8; }
        .work { stroke: #d29922; }
        .blocked { stroke: #6e7681; }
        .suspended { stroke: #ab7df8; }
        .work-stripe { stroke: #bb8009; }
        .blocked-stripe { stroke: #484f58; }
        .mark { fill: #e6edf3; }
        .cancel { stroke: #f85149; }
        .cancel-halo { stroke: #0d1117; }
        .dot { fill: #3fb950; }
        .on-lane { stroke: #0d1117; }
        .arrow { stroke: #ab7df8; }
        .arrowhead { fill: #ab7df8; }
        .group { fill: #ab7df8; stroke: #ab7df8; }
        .leader { stroke: #6e7681; }
        }
        </style>
        """

    static let definitions = """
        <defs>
        <pattern id="work" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">\
        <line class="work-stripe" x1="0" y1="0" x2="0" y2="6"/></pattern>
        <pattern id="blocked" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">\
        <line class="blocked-stripe" x1="0" y1="0" x2="0" y2="5"/></pattern>
        <marker id="arrowhead" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto">\
        <path class="arrowhead" d="M0,0 L8,4 L0,8 z"/></marker>
        </defs>
        """
}

// MARK: - One panel

/// The layout of one section's picture, computed once; `body` is its SVG.
private struct Panel {
    // Text widths are estimated: the monospace fonts named in the style advance about 0.6 em
    // per character (DejaVu Sans Mono, Menlo and SF Mono alike; Consolas a little less).
    static let monospaceAdvance = 0.61
    static let sansAdvance = 0.58
    static let padding = 14.0
    static let labelSize = 11.0
    static let labelRowHeight = 13.0
    static let barHeight = 12.0
    static let workHeight = 6.0
    static let printedSize = 12.0
    static let printedRowHeight = 16.0

    let section: Section
    let x: Double
    let width: Double
    private(set) var body = ""
    private(set) var height = 0.0

    init(chapter: String, section: Section, width: Double, x: Double) {
        self.section = section
        self.width = width
        self.x = x
        layOut(chapter: chapter)
    }

    static func textWidth(_ text: String, size: Double) -> Double {
        Double(text.count) * size * monospaceAdvance
    }

    private mutating func layOut(chapter: String) {
        let pad = Self.padding
        var y = pad
        var out = "<g>\n"

        // Title, wrapped.
        let titleSize = 15.0
        let titleLines = wrap(
            "\(TimelinePicture.chapterTitle(chapter)) · \(section.title)",
            width: width - 2 * pad, advance: titleSize * Self.sansAdvance)
        for line in titleLines {
            y += titleSize + 3
            out += text(line, x: x + pad, y: y, class: "title")
        }
        y += 10

        // Columns.
        let nameSize = 12.0
        let longestName = section.lanes.map { Self.textWidth($0, size: nameSize) }.max() ?? 0
        let nameWidth = min(longestName + 12, width * 0.3)
        let plotLeft = x + pad + nameWidth
        let plotRight = x + width - pad
        let columns = max(section.steps.count, 1)
        let columnWidth = (plotRight - plotLeft) / Double(columns)
        func columnX(_ step: Int) -> Double { plotLeft + (Double(step) + 0.5) * columnWidth }

        // Which lane each step's events are in.
        var eventsByLane: [String: [(step: Int, event: Event)]] = [:]
        // The steps at which the code of each lane did something: its own events, and what it
        // reported in other lanes (added an operation, printed a line).
        var actionsByLane: [String: [Int]] = [:]
        for (step, events) in section.steps.enumerated() {
            for event in events {
                if let lane = event.lane { eventsByLane[lane, default: []].append((step, event)) }
                if let actor = event.by ?? event.lane { actionsByLane[actor, default: []].append(step) }
            }
        }

        // Lanes: labels above the bar, in as many rows as they need not to overlap.
        let lanesTop = y
        var barCenter: [String: Double] = [:]
        var laneBodies = ""
        for lane in section.lanes {
            let events = eventsByLane[lane] ?? []
            let spans = spans(
                of: events, actions: actionsByLane[lane] ?? [], columnX: columnX, columnWidth: columnWidth,
                plotLeft: plotLeft, plotRight: plotRight)
            // Labels: the events' (centred on their mark) and the bars' (from the bar's start, or
            // further along the bar when a label is in the way: `slack`).
            var labels: [Label] = []
            for (step, event) in events {
                guard let label = event.label, !label.isEmpty else { continue }
                let labelWidth = Self.textWidth(label, size: Self.labelSize)
                labels.append((label, columnX(step) - labelWidth / 2, columnX(step), 0))
            }
            for span in spans {
                if let label = span.label {
                    labels.append((label, span.from, span.from, max(0, span.to - span.from - 24)))
                }
            }
            labels.sort { $0.left < $1.left }
            // An event's leader goes down from its label to its mark, through the rows below: a
            // label there that covers the mark is crossed. The crossed label moves aside (along
            // its own mark, or along its bar) where it covers none of the marks whose leaders
            // crossed it; if it cannot, the label whose leader crossed it takes its row first.
            // The rows are made again until no leader crosses a label, or nothing can move.
            var avoided = Array(repeating: [Double](), count: labels.count)
            var first: [Int] = []
            var (rowCount, placed) = Self.rows(of: labels, first: first, plotLeft: plotLeft, plotRight: plotRight)
            for _ in 0..<(2 * labels.count) {
                var changed = false
                for (index, label) in labels.enumerated() {
                    let width = Self.textWidth(label.text, size: Self.labelSize)
                    guard
                        let crossing = placed.indices.first(where: { other in
                            other != index && placed[other].slack == 0 && placed[other].row > placed[index].row
                                && placed[other].markX > placed[index].x - 2
                                && placed[other].markX < placed[index].x + width + 2
                        })
                    else { continue }
                    avoided[index].append(placed[crossing].markX)
                    if let left = Self.clearLeft(
                        of: label, avoiding: avoided[index], plotLeft: plotLeft, plotRight: plotRight)
                    {
                        labels[index].left = left
                    } else if !first.contains(crossing) {
                        first.append(crossing)
                    } else {
                        continue
                    }
                    changed = true
                }
                guard changed else { break }
                (rowCount, placed) = Self.rows(of: labels, first: first, plotLeft: plotLeft, plotRight: plotRight)
            }
            // A bar's label above another label: its leader goes down where it crosses none of
            // them, within the bar and under the label (an event's leader stays on its mark).
            for (index, label) in placed.enumerated() where label.row > 0 && label.slack > 0 {
                let below = placed.filter { $0.row < label.row }.map {
                    (left: $0.x - 3, right: $0.x + Self.textWidth($0.text, size: Self.labelSize) + 3)
                }
                var markX = label.markX
                // Each step moves right past one label: it ends after at most `below.count` steps.
                while let blocking = below.first(where: { markX >= $0.left && markX <= $0.right }) {
                    markX = blocking.right + 1
                }
                let labelRight = label.x + Self.textWidth(label.text, size: Self.labelSize)
                if markX <= min(label.markX + label.slack, labelRight) { placed[index].markX = markX }
            }
            let labelsHeight = Double(rowCount) * Self.labelRowHeight
            let barTop = y + labelsHeight + 4
            let center = barTop + Self.barHeight / 2
            barCenter[lane] = center
            var lines = ""
            lines +=
                "<line class=\"rule\" x1=\"\(number(plotLeft))\" y1=\"\(number(center))\" "
                + "x2=\"\(number(plotRight))\" y2=\"\(number(center))\"/>\n"
            for span in spans {
                let top = barTop + span.top
                lines +=
                    "<rect class=\"\(span.kind)\" x=\"\(number(span.from))\" y=\"\(number(top))\" "
                    + "width=\"\(number(max(span.to - span.from, 3)))\" height=\"\(number(span.height))\"/>\n"
            }
            // Leaders first, then the labels over them: a leader that passes behind a lower
            // label is hidden by that label's halo (`.label` has a stroke of the background).
            for label in placed where label.row > 0 {
                let baseline = barTop - 3 - Double(label.row) * Self.labelRowHeight
                lines +=
                    "<line class=\"leader\" x1=\"\(number(label.markX))\" y1=\"\(number(baseline + 2))\" "
                    + "x2=\"\(number(label.markX))\" y2=\"\(number(barTop))\"/>\n"
            }
            for label in placed {
                let baseline = barTop - 3 - Double(label.row) * Self.labelRowHeight
                lines += text(label.text, x: label.x, y: baseline, class: "label")
            }
            lines += marks(for: events, center: center, columnX: columnX)
            let nameLines = wrap(lane, width: nameWidth - 8, advance: nameSize * Self.monospaceAdvance)
            for (index, line) in nameLines.prefix(2).enumerated() {
                let offset = (Double(index) - Double(min(nameLines.count, 2) - 1) / 2) * 13
                lines += text(line, x: x + pad, y: center + 4 + offset, class: "lane-name")
            }
            laneBodies += lines
            y = barTop + Self.barHeight + 2 + Self.workHeight + 10
        }
        let lanesBottom = y

        // Steps whose events happened in any order: a band behind their column.
        var groups = ""
        for (step, events) in section.steps.enumerated() where events.count > 1 {
            let left = columnX(step) - min(columnWidth, 22) / 2
            groups +=
                "<rect class=\"group\" x=\"\(number(left))\" y=\"\(number(lanesTop))\" "
                + "width=\"\(number(min(columnWidth, 22)))\" height=\"\(number(lanesBottom - lanesTop - 6))\" rx=\"4\"/>\n"
        }

        // Arrows: from the "finished" of what was waited for to the event that waited.
        var arrows = ""
        for (step, events) in section.steps.enumerated() {
            for event in events {
                guard let lane = event.lane, let toY = barCenter[lane] else { continue }
                for source in event.after {
                    guard let fromY = barCenter[source],
                        let from = eventsByLane[source]?.last(where: { $0.step <= step && $0.event.kind == .finished })
                    else { continue }
                    // Out of the right of the "finished" mark, into the left of the waiting event's mark.
                    let x1 = columnX(from.step) + 4
                    let x2 = columnX(step) - 5
                    let bend = max((x2 - x1) / 2, 10)
                    arrows +=
                        "<path class=\"arrow\" marker-end=\"url(#arrowhead)\" d=\"M\(number(x1)),\(number(fromY)) "
                        + "C\(number(x1 + bend)),\(number(fromY)) \(number(x2 - bend)),\(number(toY)) "
                        + "\(number(x2)),\(number(toY))\"/>\n"
                }
            }
        }

        out += groups + laneBodies + arrows

        // Printed lines: each in its own row, starting (or ending) at its column.
        let printed = section.steps.enumerated().flatMap { step, events in
            events.filter { $0.kind == .printed }.map { (step: step, text: $0.detail ?? "", by: $0.by) }
        }
        if !printed.isEmpty {
            out +=
                "<line class=\"rule\" x1=\"\(number(x + pad))\" y1=\"\(number(y))\" "
                + "x2=\"\(number(x + width - pad))\" y2=\"\(number(y))\"/>\n"
            y += 4
            out += text("printed", x: x + pad, y: y + Self.printedSize, class: "label muted")
            let advance = Self.printedSize * Self.monospaceAdvance
            for (index, line) in printed.enumerated() {
                let dotX = columnX(line.step)
                let rightRoom = x + width - pad - (dotX + 7)
                // The first line shares its row with the word "printed".
                let heading = index == 0 ? Self.textWidth("printed", size: Self.labelSize) + 10 : 0
                let leftRoom = dotX - 7 - (x + pad + heading)
                let full = Self.textWidth(line.text, size: Self.printedSize)
                // Beside its dot, to the right or the left, where it fits; else on rows of its own
                // below the dot, from the left margin.
                let side = full <= rightRoom ? "right" : full <= leftRoom ? "left" : "below"
                y += Self.printedRowHeight
                // From the lane of the code that printed it, if it has one here.
                let printer = line.by.flatMap { barCenter[$0] }
                out +=
                    "<line class=\"guide\" x1=\"\(number(dotX))\" y1=\"\(number(printer ?? lanesBottom - 4))\" "
                    + "x2=\"\(number(dotX))\" y2=\"\(number(y - 4))\"/>\n"
                if let printer {
                    out += "<circle class=\"dot on-lane\" cx=\"\(number(dotX))\" cy=\"\(number(printer))\" r=\"3\"/>\n"
                }
                out += "<circle class=\"dot\" cx=\"\(number(dotX))\" cy=\"\(number(y - 4))\" r=\"3\"/>\n"
                switch side {
                case "right": out += text(line.text, x: dotX + 7, y: y, class: "printed")
                case "left": out += text(line.text, x: dotX - 7, y: y, class: "printed", anchor: "end")
                default:
                    for part in wrap(line.text, width: width - 2 * pad - 12, advance: advance) {
                        y += Self.printedRowHeight - 2
                        out += text(part, x: x + pad + 12, y: y, class: "printed")
                    }
                }
            }
            y += 8
        }

        // Legend: only what this picture uses.
        y += 6
        out += legend(y: &y)
        out += "</g>\n"
        body = out
        height = y + pad - 4
    }

    // MARK: Labels

    /// A label above a lane: an event's (`slack` 0, its leader on its mark) or a bar's (it may
    /// move right along the bar by `slack`, and its leader finds its own way).
    typealias Label = (text: String, left: Double, markX: Double, slack: Double)

    /// `labels`, sorted by `left`, in rows: each in the lowest row it fits in, moved right by at
    /// most its slack; else in a new row. Those in `first` take their rows before the others.
    /// The number of rows, and each label's row and `x`, in the order of `labels`.
    static func rows(of labels: [Label], first: [Int], plotLeft: Double, plotRight: Double) -> (
        count: Int, placed: [(text: String, x: Double, row: Int, markX: Double, slack: Double)]
    ) {
        var rowsRight: [Double] = []
        var placed = labels.map { (text: $0.text, x: $0.left, row: 0, markX: $0.markX, slack: $0.slack) }
        for index in first + labels.indices.filter({ !first.contains($0) }) {
            let label = labels[index]
            let labelWidth = textWidth(label.text, size: labelSize)
            let left = max(plotLeft - 4, min(label.left, plotRight - labelWidth))
            var row = 0
            var x = left
            while row < rowsRight.count {
                // Moved, it keeps a wider gap: two labels in a row must not read as one.
                let candidate = left >= rowsRight[row] + 6 ? left : rowsRight[row] + 16
                if candidate <= left + label.slack, candidate + labelWidth <= plotRight {
                    x = candidate
                    break
                }
                row += 1
            }
            if row == rowsRight.count { rowsRight.append(-Double.infinity) }
            rowsRight[row] = max(rowsRight[row], x + labelWidth)
            placed[index] = (label.text, x, row, x == left ? label.markX : x, label.slack)
        }
        return (rowsRight.count, placed)
    }

    /// Where `label` can start so that it covers none of `marks`, as near as can be to where it
    /// starts now: an event's label anywhere it still has its own mark under it, a bar's along
    /// its bar. Nil if nowhere.
    static func clearLeft(of label: Label, avoiding marks: [Double], plotLeft: Double, plotRight: Double) -> Double? {
        let width = textWidth(label.text, size: labelSize)
        let range =
            label.slack == 0
            ? max(plotLeft - 4, label.markX - width + 3)...min(plotRight - width, label.markX - 3)
            : max(plotLeft - 4, label.left)...min(plotRight - width, label.left + label.slack)
        guard range.lowerBound <= range.upperBound else { return nil }
        // The candidates: where it is, and just past each mark on either side.
        let candidates =
            [label.left] + marks.flatMap { [$0 + 3, $0 - 3 - width] }.filter { range.contains($0) }
            + [range.lowerBound, range.upperBound]
        return
            candidates
            .filter { left in range.contains(left) && !marks.contains { $0 > left - 2.5 && $0 < left + width + 2.5 } }
            .min { abs($0 - label.left) < abs($1 - label.left) }
    }

    // MARK: Bars and marks

    /// A bar along a lane, from one x to another, at `top` below the lane's bar top.
    private struct Span {
        let kind: String
        let from: Double
        let to: Double
        let top: Double
        let height: Double
        let label: String?
    }

    /// The bars of one lane: in a queue, executing, its work, blocked in a wait, suspended. A bar
    /// that does not end in the section runs to its right edge.
    private func spans(
        of events: [(step: Int, event: Event)], actions: [Int], columnX: (Int) -> Double, columnWidth: Double,
        plotLeft: Double, plotRight: Double
    ) -> [Span] {
        let kinds: [(kind: String, begins: Set<EventKind>, ends: Set<EventKind>, top: Double, height: Double)] = [
            ("queued", [.added], [.start, .executing, .finished], 1, Self.barHeight - 2),
            ("executing", [.executing], [.finished], 0, Self.barHeight),
            ("work", [.workStarted], [.workEnded], Self.barHeight + 2, Self.workHeight),
            ("blocked", [.waits], [.waitReturned], 0, Self.barHeight),
            ("suspended", [.suspends], [.resumes], 1, Self.barHeight - 2),
        ]
        var spans: [Span] = []
        for kind in kinds {
            var begun: (step: Int, label: String?)?
            for (step, event) in events {
                if begun == nil, kind.begins.contains(event.kind) {
                    begun = (step, event.detail)
                } else if kind.ends.contains(event.kind), let from = begun {
                    spans.append(
                        Span(
                            kind: kind.kind, from: columnX(from.step), to: columnX(step), top: kind.top,
                            height: kind.height, label: from.label))
                    begun = nil
                } else if kind.kind == "blocked", event.kind == .waitReturned {
                    // A wait reported by its return alone: it began after the lane's code last did
                    // something (its own event, an operation it added, a line it printed).
                    let from = actions.last { $0 < step }.map { columnX($0) + columnWidth * 0.3 } ?? plotLeft
                    spans.append(
                        Span(
                            kind: kind.kind, from: from, to: columnX(step), top: kind.top,
                            height: kind.height, label: event.detail))
                }
            }
            if let from = begun {
                spans.append(
                    Span(
                        kind: kind.kind, from: columnX(from.step), to: plotRight, top: kind.top,
                        height: kind.height, label: from.label))
            }
        }
        return spans
    }

    /// The marks of one lane's labelled events: a dot, a square for "finished", a cross for "cancelled".
    private func marks(for events: [(step: Int, event: Event)], center: Double, columnX: (Int) -> Double) -> String {
        var out = ""
        for (step, event) in events {
            let markX = columnX(step)
            switch event.kind {
            case .finished:
                out +=
                    "<rect class=\"mark\" x=\"\(number(markX - 3.5))\" y=\"\(number(center - 6))\" "
                    + "width=\"7\" height=\"12\"/>\n"
            case .cancelled:
                let r = 4.5
                let cross =
                    "d=\"M\(number(markX - r)),\(number(center - r)) "
                    + "L\(number(markX + r)),\(number(center + r)) M\(number(markX - r)),\(number(center + r)) "
                    + "L\(number(markX + r)),\(number(center - r))\"/>\n"
                // On a bar, red on blue is hard to see: a halo of the background colour first.
                out += "<path class=\"cancel-halo\" " + cross + "<path class=\"cancel\" " + cross
            case .completionBlock:
                out +=
                    "<path class=\"mark\" d=\"M\(number(markX)),\(number(center - 5)) L\(number(markX + 5)),"
                    + "\(number(center)) L\(number(markX)),\(number(center + 5)) L\(number(markX - 5)),\(number(center)) z\"/>\n"
            default:
                guard let label = event.label, !label.isEmpty else { continue }
                out += "<circle class=\"mark\" cx=\"\(number(markX))\" cy=\"\(number(center))\" r=\"3\"/>\n"
            }
        }
        return out
    }

    // MARK: Legend

    private func legend(y: inout Double) -> String {
        let kinds = Set(section.steps.joined().map(\.kind))
        let hasArrows = section.steps.joined().contains { !$0.after.isEmpty }
        let hasGroups = section.steps.contains { $0.count > 1 }
        var items: [(swatch: String, text: String)] = []
        func swatch(_ kind: String, top: Double = 2, height: Double = 9) -> String {
            "<rect class=\"\(kind)\" x=\"0\" y=\"\(number(top))\" width=\"22\" height=\"\(number(height))\"/>"
        }
        if kinds.contains(.added) { items.append((swatch("queued"), "in a queue")) }
        if kinds.contains(.executing) { items.append((swatch("executing"), "executing")) }
        if kinds.contains(.workStarted) { items.append((swatch("work", top: 4, height: 6), "its work")) }
        if kinds.contains(.waits) || kinds.contains(.waitReturned) {
            items.append((swatch("blocked"), "blocked in a wait"))
        }
        if kinds.contains(.suspends) { items.append((swatch("suspended"), "suspended in await")) }
        if kinds.contains(.finished) {
            items.append(("<rect class=\"mark\" x=\"8\" y=\"1\" width=\"7\" height=\"11\"/>", "finished"))
        }
        if kinds.contains(.cancelled) {
            items.append(("<path class=\"cancel\" d=\"M7,2 L16,11 M7,11 L16,2\"/>", "cancelled"))
        }
        if hasArrows {
            items.append(
                ("<path class=\"arrow\" marker-end=\"url(#arrowhead)\" d=\"M1,6.5 L20,6.5\"/>", "waited for"))
        }
        if hasGroups { items.append((swatch("group", top: 0, height: 13), "in any order")) }
        let axis = "one column per event, in the order they happened; no time scale"
        items.append(
            (
                "",
                Panel.textWidth(axis, size: 11) < width - 2 * Self.padding
                    ? axis : "one column per event; no time scale"
            ))

        var out = ""
        var cursor = x + Self.padding
        let size = 11.0
        y += 2
        for item in items {
            let itemWidth = (item.swatch.isEmpty ? 0 : 28) + Panel.textWidth(item.text, size: size) + 16
            if cursor + itemWidth > x + width - Self.padding, cursor > x + Self.padding {
                cursor = x + Self.padding
                y += 17
            }
            if !item.swatch.isEmpty {
                out += "<g transform=\"translate(\(number(cursor)),\(number(y)))\">\(item.swatch)</g>\n"
                cursor += 28
            }
            out += text(item.text, x: cursor, y: y + 11, class: "label muted")
            cursor += itemWidth - (item.swatch.isEmpty ? 0 : 28)
        }
        y += 17
        return out
    }

    // MARK: Text

    private func text(_ content: String, x: Double, y: Double, class kind: String, anchor: String? = nil) -> String {
        let anchorAttribute = anchor.map { " text-anchor=\"\($0)\"" } ?? ""
        return
            "<text class=\"\(kind)\" x=\"\(number(x))\" y=\"\(number(y))\"\(anchorAttribute)>\(escaped(content))</text>\n"
    }

    /// `text` in lines no wider than `width`, broken between words (inside a word that is too long).
    private func wrap(_ text: String, width: Double, advance: Double) -> [String] {
        let perLine = max(Int(width / advance), 8)
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            var word = word
            while word.count > perLine {
                if !current.isEmpty {
                    lines.append(current)
                    current = ""
                }
                // After the last "/", "(" or "," that fits, if any: URLs and calls break there.
                let head = word.prefix(perLine)
                let cut = head.lastIndex { "/(,".contains($0) }.map { head.distance(from: head.startIndex, to: $0) + 1 }
                let length = cut.map { $0 > perLine / 3 ? $0 : perLine } ?? perLine
                lines.append(String(word.prefix(length)))
                word = String(word.dropFirst(length))
            }
            if current.isEmpty {
                current = word
            } else if current.count + 1 + word.count <= perLine {
                current += " " + word
            } else {
                lines.append(current)
                current = word
            }
        }
        lines.append(current)
        return lines
    }
}

/// A coordinate as SVG writes it: at most one decimal, no trailing ".0".
func number(_ value: Double) -> String {
    let tenths = (value * 10).rounded()
    return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(tenths / 10)
}

/// `text` with the five characters XML reserves escaped.
func escaped(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.count)
    for character in text {
        switch character {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        default: out.append(character)
        }
    }
    return out
}
