import Dispatch
import Exercise0
import Foundation
import TestSupport
import Testing

@Suite("Exercise 0 — dependencies decide the order")
struct Exercise0Tests {
    @Test("resize depends on download, upload on resize")
    func dependencies() {
        let pipeline = makePhotoPipeline { _ in }
        #expect(
            pipeline.resize.dependencies.contains(pipeline.download),
            "resize does not wait for download (\(Self.waits(pipeline))): resize.addDependency(download) (hint: \"Which waits for which\")"
        )
        #expect(
            pipeline.upload.dependencies.contains(pipeline.resize),
            "upload does not wait for resize (\(Self.waits(pipeline))): upload.addDependency(resize) (hint: \"Which waits for which\")"
        )
    }

    @Test("on a queue that runs three at once, nothing is ready while download runs, and upload not while resize runs")
    func nothingStartsBeforeDownloadEnds() async {
        // Each step is held while it runs. A step the queue may start is ready (isReady); the
        // queue starts every ready step at once, so one that is ready too early runs too early.
        let log = EventLog()
        let gates = ["download": Gate(), "resize": Gate()]
        let pipeline = makePhotoPipeline { step in
            log.record(step)
            gates[step]?.hold()
        }
        defer { for gate in gates.values { gate.open() } }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 3
        queue.add(pipeline.operations)
        for (running, later) in [("download", ["resize", "upload"]), ("resize", ["upload"])] {
            guard let gate = gates[running], await gate.reached.wait(seconds: 5) else {
                Issue.record(
                    Comment(
                        rawValue: "\(running) had not started 5 s after the steps were queued (ran: \(log.events)): "
                            + Self.whyItNeverRuns(pipeline)))
                return
            }
            let steps = ["download": pipeline.download, "resize": pipeline.resize, "upload": pipeline.upload]
            let readyTooEarly = later.filter { steps[$0]?.isReady == true }
            let ranMeanwhile = log.events.filter { later.contains($0) }
            if !readyTooEarly.isEmpty || !ranMeanwhile.isEmpty {
                Issue.record(
                    Comment(
                        rawValue: """
                            while \(running) was still running, \((readyTooEarly + ranMeanwhile).uniqued.joined(separator: " and ")) \
                            \(ranMeanwhile.isEmpty ? "was ready to start" : "had started") (\(Self.waits(pipeline))): on a queue that \
                            runs several operations at once, only dependencies make a step wait (hint: "Which waits for which")
                            """))
                return
            }
            gate.open()
        }
        if !(await drained(queue, within: 5)) {
            Issue.record(
                Comment(
                    rawValue: "the queue had not finished the three steps 5 s later (ran: \(log.events)): "
                        + Self.whyItNeverRuns(pipeline)))
        }
    }

    @Test("on a serial queue, added upload first, they still run download, resize, upload")
    func orderOnAQueue() async {
        let log = EventLog()
        let pipeline = makePhotoPipeline(record: log.record)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1  // without dependencies it runs them as added: upload first
        guard await queue.runs(pipeline.operations, within: 5) else {
            Issue.record(
                Comment(
                    rawValue:
                        "the queue had not finished the three steps 5 s after they were queued (ran: \(log.events)): "
                        + Self.whyItNeverRuns(pipeline)))
            return
        }
        #expect(
            log.events == ["download", "resize", "upload"],
            "the steps ran in this order: \(log.events) (\(Self.waits(pipeline))) (hint: \"Which waits for which\")")
    }

    /// Each step's dependencies, as the operations say: "resize waits for download, …".
    static func waits(_ pipeline: PhotoPipeline) -> String {
        let steps = [("download", pipeline.download), ("resize", pipeline.resize), ("upload", pipeline.upload)]
        func name(_ operation: Operation) -> String {
            steps.first { $0.1 === operation }?.0 ?? "another \(type(of: operation))"
        }
        return steps.map { stepName, step in
            let names = step.dependencies.map(name)
            return names.isEmpty
                ? "\(stepName) waits for nothing" : "\(stepName) waits for \(names.joined(separator: " and "))"
        }.joined(separator: ", ")
    }

    /// Why steps of the pipeline never run, as the dependencies show it: a step that waits for
    /// an operation that is not one of the three (no queue ever runs it), or a cycle.
    static func whyItNeverRuns(_ pipeline: PhotoPipeline) -> String {
        let steps = [("download", pipeline.download), ("resize", pipeline.resize), ("upload", pipeline.upload)]
        func name(_ operation: Operation) -> String? { steps.first { $0.1 === operation }?.0 }
        for (stepName, step) in steps {
            if let stranger = step.dependencies.first(where: { name($0) == nil }) {
                return """
                    \(stepName) waits for an operation (a \(type(of: stranger))) that is not one of the three steps: nothing adds it to a \
                    queue, so it never finishes, and \(stepName) never starts. Make each step wait for another step \
                    (hint: "Which waits for which")
                    """
            }
        }
        // A cycle: following the dependencies from a step comes back to it.
        for (stepName, step) in steps {
            var path = [stepName]
            var current: Operation = step
            while let next = current.dependencies.first, let nextName = name(next), path.count <= steps.count {
                path.append(nextName)
                if nextName == stepName {
                    return """
                        the steps wait in a circle (\(path.joined(separator: " waits for "))): none of them is ever \
                        ready, so none runs (hint: "A cycle never runs")
                        """
                }
                current = next
            }
        }
        return "\(waits(pipeline)) (hint: \"Which waits for which\")"
    }
}

/// Holds the step that reaches it, on the queue's thread, until the test opens it (or 5 s pass).
private final class Gate: Sendable {
    let reached = Flag()
    private let opened = DispatchSemaphore(value: 0)

    func hold() {
        reached.raise()
        _ = opened.wait(timeout: .now() + 5 * boundStretch)  // the queue's own thread, bounded
    }

    /// Lets the held step end; harmless when called again.
    func open() { opened.signal() }
}

extension Array where Element: Hashable {
    /// The elements, each once, in their first order.
    fileprivate var uniqued: [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
