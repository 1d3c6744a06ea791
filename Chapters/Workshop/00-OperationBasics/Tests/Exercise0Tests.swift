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
            "resize must wait for download: resize.addDependency(download) (hint: \"Which waits for which\")")
        #expect(
            pipeline.upload.dependencies.contains(pipeline.resize),
            "upload must wait for resize: upload.addDependency(resize) (hint: \"Which waits for which\")")
    }

    @Test("on a queue that runs three at once, nothing starts while download runs")
    func nothingStartsBeforeDownloadEnds() async {
        let log = EventLog()
        let downloadRunning = DispatchSemaphore(value: 0)
        let downloadMayEnd = DispatchSemaphore(value: 0)
        let pipeline = makePhotoPipeline { step in
            log.record(step)
            if step == "download" {
                downloadRunning.signal()
                _ = downloadMayEnd.wait(timeout: .now() + 5)  // the queue's own thread, bounded
            }
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 3
        queue.add(pipeline.operations)
        // On a thread of its own: download blocks one of the threads Dispatch shares with the
        // test's own tasks. A step that does not wait for download starts within this moment.
        let startedMeanwhile = await read(within: 8) { () -> [String]? in
            guard downloadRunning.wait(timeout: .now() + 5) == .success else { return nil }
            Thread.sleep(forTimeInterval: 0.3)
            return log.events
        }
        downloadMayEnd.signal()
        guard let startedMeanwhile = startedMeanwhile ?? nil else {
            Issue.record(Comment(rawValue: "download never ran: " + Self.whyItNeverRuns(pipeline)))
            return
        }
        #expect(
            startedMeanwhile == ["download"],
            """
            while download was still running, these had run: \(startedMeanwhile). On a queue that runs several \
            operations at once, only dependencies make a step wait (hint: "Which waits for which")
            """)
        if !(await drained(queue, within: 5)) {
            Issue.record(
                Comment(rawValue: "the queue never finished the three steps: " + Self.whyItNeverRuns(pipeline)))
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
                Comment(rawValue: "the queue never finished the three steps: " + Self.whyItNeverRuns(pipeline)))
            return
        }
        #expect(
            log.events == ["download", "resize", "upload"],
            "the steps ran in this order: \(log.events) (hint: \"Which waits for which\")")
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
        return
            "the steps never became ready, though their dependencies are among them (hint: \"Which waits for which\")"
    }
}
