import Coordinators
import TestSupport
import Testing

extension RaceDemos {
    /// Chapter 8: the original concurrent coordinator appends every error to one shared array
    /// from concurrent completions. ThreadSanitizer reports "data race"; without it, errors
    /// can get lost or the array corrupted. Nothing is asserted about the errors here: the
    /// demo's evidence is ThreadSanitizer's report, which Scripts/race-demos looks for. The
    /// fixed coordinator runs the same scenario in
    /// Chapter8CoordinatorTests.concurrentCompletionsCollectSafely.
    @Test("chapter 8: OriginalConcurrentCoordinator appends errors from concurrent completions")
    func chapter8OriginalConcurrentCoordinator() async {
        let recorder = await failAllAtOnce(with: OriginalConcurrentCoordinator(), count: 1000)
        print("OriginalConcurrentCoordinator collected \(recorder.errors?.count ?? 0) of 1000 errors")
    }
}
