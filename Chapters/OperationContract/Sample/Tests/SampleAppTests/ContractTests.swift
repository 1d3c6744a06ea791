import Foundation
import OperationContract
import SampleApp
import Testing

@Suite("The app's operations keep the contract (Swift Testing)")
struct ContractTests {
    @Test func downloadOperationKeepsTheContract() async {
        let report = await checkContract(result: \.result) { work in DownloadOperation(using: WorkDownloader(work)) }
        #expect(report.passed, "\(report)")
    }

    @Test func appOperationKeepsTheContract() async {
        await checkContract { work in CheckedAppOperation(work) }.recordIssues()
    }

    #if os(macOS) || os(Linux)
        // An operation that traps would end the test process: checked in a child process, a trap
        // fails this test alone.
        @Test func downloadOperationInAChildProcess() async {
            await #expect(processExitsWith: .success) {
                let report = await checkContract(result: \.result) { work in
                    DownloadOperation(using: WorkDownloader(work))
                }
                if !report.passed {
                    print(report)
                    exit(1)
                }
            }
        }
    #endif
}

/// The kit's work, standing in for the network: a download that ends when the kit says.
struct WorkDownloader: Downloader {
    let work: ContractWork

    init(_ work: ContractWork) {
        self.work = work
    }

    func download(completion: @escaping @Sendable (Data?) -> Void) -> any DownloadTask {
        work.start { completion(Data("downloaded".utf8)) }
        return WorkTask(work: work)
    }
}

/// Stopping the kit's work, as cancelling a download stops it.
struct WorkTask: DownloadTask {
    let work: ContractWork

    func cancel() { work.stop() }
}

/// The app's base, as the kit checks it: a three-line subclass that runs the kit's work.
final class CheckedAppOperation: AppOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to the app's thread-safe base.
    let work: ContractWork
    init(_ work: ContractWork) { self.work = work }
    override func main() {
        whenCancelled { [work] in work.stop() }
        work.start { self.finish() }
    }
}
