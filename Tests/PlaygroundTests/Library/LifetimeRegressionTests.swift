import AsyncOperations
import Cancellation
import Foundation
import TestSupport
import Testing

@Suite("The library's lifetimes: every operation is freed once nothing but Foundation holds it")
struct LifetimeRegressionTests {
    @Test("an UploadOperation is freed after its upload, whether it ends or is cancelled", arguments: [false, true])
    func uploadIsFreed(cancelling: Bool) async {
        let reference = WeakReference()
        do {
            let upload = UploadOperation(chunkCount: 3, pace: .milliseconds(1)) { progress, operation in
                if cancelling && progress.sent == 1 { operation.cancel() }
            }
            reference.object = upload
            #expect(await OperationQueue().runs(upload))
            #expect(upload.outcome == (cancelling ? .cancelled(afterChunks: 1) : .uploaded(chunks: 3)))
        }
        #expect(await reference.isFreed(), "the UploadOperation is still alive")
    }
}
