// Chapter 3's base operation compiled a second time, without the recorder of the chapters'
// pictures (the target AsyncOperationsWithoutRecording is a link to the same folder, built with
// WITHOUT_RECORDING: every report is empty). Against it, the benchmark measures what the
// recorder costs the base when it is compiled in and off. Its own file: importing both modules
// in one file would make every name of theirs ambiguous.
import AsyncOperationsWithoutRecording
import Foundation

final class BaseWithoutRecorder: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func main() { finish() }
}

/// An empty operation on the base compiled without the recorder.
func makeBaseWithoutRecorder() -> Operation { BaseWithoutRecorder() }
