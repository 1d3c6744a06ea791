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
        // Each clause in a process of its own: a clause that traps, or leaves a thread
        // deadlocked, fails alone, and the test shows what its process printed.
        @Test(arguments: ContractClause.allCases)
        func downloadOperationClauseByClause(_ clause: ContractClause) async {
            let child = await #expect(
                processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]
            ) { [clause] in
                let report = await checkContract(clauses: [clause], result: \.result) { work in
                    DownloadOperation(using: WorkDownloader(work))
                }
                print(report)
                exit(report.passed ? EXIT_SUCCESS : EXIT_FAILURE)
            }
            if let child, child.exitStatus != .exitCode(EXIT_SUCCESS) {
                let printed = child.standardOutputContent + child.standardErrorContent
                Issue.record(Comment(rawValue: String(decoding: printed, as: UTF8.self)))
            }
        }

        // The same form on an operation whose cancel() traps while it runs: that clause's
        // process ends with the trap, and its message is there to read; the others pass.
        @Test func aTrapEndsOnlyItsClausesProcess() async {
            let trapped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                _ = await checkContract(clauses: [.cancelWhileRunning]) { work in TrappingOperation(work) }
            }
            let message = String(decoding: trapped?.standardErrorContent ?? [], as: UTF8.self)
            #expect(message.contains("cancelled while its download runs"), "\(message)")
            await #expect(processExitsWith: .success) {
                let report = await checkContract(clauses: [.executingWhileWorking]) { work in TrappingOperation(work) }
                exit(report.passed ? EXIT_SUCCESS : EXIT_FAILURE)
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

/// An operation that traps when it is cancelled while it runs: only the clauses that cancel it
/// then end with the trap.
final class TrappingOperation: AppOperation, @unchecked Sendable {
    // @unchecked Sendable: adds only a constant to the app's thread-safe base.
    let work: ContractWork
    init(_ work: ContractWork) { self.work = work }
    override func main() { work.start { self.finish() } }
    override func cancel() {
        if isExecuting { fatalError("cancelled while its download runs") }
        super.cancel()
    }
}
