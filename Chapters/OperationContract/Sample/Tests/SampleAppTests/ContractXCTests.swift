import Foundation
import OperationContract
import SampleApp
import XCTest

/// The same checks from XCTest.
final class ContractXCTests: XCTestCase {
    func testDownloadOperationKeepsTheContract() async {
        let report = await checkContract(result: \.result) { work in DownloadOperation(using: WorkDownloader(work)) }
        XCTAssertTrue(report.passed, "\(report)")
    }

    func testAppOperationKeepsTheContract() async {
        let report = await checkContract { work in CheckedAppOperation(work) }
        XCTAssertTrue(report.passed, "\(report)")
        XCTAssertEqual(report[.cancelledBeforeStart]?.verdict, .passed)
    }
}
