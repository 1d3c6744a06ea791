import Exercise0
import Foundation
import TestSupport
import Testing

@Suite("Exercise 0 — dependencies decide the order")
struct Exercise0Tests {
    @Test("resize depends on download, upload on resize")
    func dependencies() {
        let pipeline = makePhotoPipeline { _ in }
        #expect(pipeline.resize.dependencies.contains(pipeline.download), "resize must wait for download")
        #expect(pipeline.upload.dependencies.contains(pipeline.resize), "upload must wait for resize")
    }

    @Test("on a serial queue, added upload first, they still run download, resize, upload")
    func orderOnAQueue() async {
        let log = EventLog()
        let pipeline = makePhotoPipeline(record: log.record)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1  // without dependencies it runs them as added: upload first
        guard await queue.runs(pipeline.operations, within: 5) else {
            Issue.record("the queue never finished the three steps: is there a dependency cycle?")
            return
        }
        #expect(log.events == ["download", "resize", "upload"], "the steps ran in this order: \(log.events)")
    }
}
