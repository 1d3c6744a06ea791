import Foundation
import Recording

/// A chapter's pictures: what its `main.swift` says to the recording of its run.
///
/// A chapter's run is recorded only when its `main.swift` asks for it, in one line at its top
/// (`Timeline.recordIfAsked()`), and its command line names a folder (`swift run chapter3
/// --timeline /tmp/pictures`; `Scripts/draw-timelines` runs every chapter so). Everything else
/// here does nothing when the run is not recorded.
///
/// What the pictures show is observed from outside the chapters' libraries: by the reporting
/// subclasses that the chapters' executables make of their operations (`OperationWatch`,
/// `BlockOperation.named(_:_:)`, `OperationQueue.named(_:)`), by `say`, and by reading the
/// program's standard output.
public enum Timeline {
    /// Records this run if its command line holds `--timeline FOLDER`, and draws its pictures
    /// into FOLDER when the program exits (at the end of main.swift, or at an `exit()`),
    /// whichever thread ends it. Call it first, before anything is made.
    public static func recordIfAsked() {
        guard TimelineFiles.folder != nil, Recorder.current == nil else { return }
        let recorder = Recorder()
        Recorder.install(recorder)
        recorder.captureStandardOutput()
        atexit {
            guard let recorder = Recorder.current, let folder = TimelineFiles.folder else { return }
            let sections = recorder.recordedSections(settling: 2)
            recorder.releaseStandardOutput()
            do {
                try TimelineFiles.write(sections, chapter: TimelineFiles.chapter, to: folder)
            } catch {
                FileHandle.standardError.write(Data("could not write the timelines: \(error)\n".utf8))
                _exit(3)
            }
        }
    }

    /// A note in the lane of the code that calls it ("heldWork.resume()"), for a step of the
    /// story that nothing else reports.
    public static func note(_ text: String) {
        Recorder.current?.recordHere(.note, detail: text)
    }

    /// Declares that `operations` run at the same time: the order between their events (of
    /// `kinds` only, if given) is not caused, so the picture draws their n-th events of each
    /// kind together, in one column.
    public static func drawnTogether(_ operations: [Operation], only kinds: Set<EventKind>? = nil) {
        Recorder.current?.inAnyOrder(operations, kinds: kinds)
    }

    /// `drawnTogether([a, b])`.
    public static func drawnTogether(_ operations: Operation...) {
        drawnTogether(operations)
    }

    /// Work named `lane` that is not an `Operation` (a coordinated operation, a task) begins:
    /// drawn as an executing bar.
    public static func workBegins(_ lane: String) {
        Recorder.current?.report(.executing, lane: lane)
    }

    /// The work named `lane` has ended (it calls its completion).
    public static func workEnds(_ lane: String) {
        Recorder.current?.report(.finished, lane: lane)
    }

    /// An async function awaits `operations` (chapter 5's `queue.run(_:)`, `queue.value(of:)`,
    /// `untilFinished()`), in `body`: drawn in the lane "awaiting task", suspended in `call`
    /// until `body` returns (or throws), then resuming after `operations`. (`body` runs where the
    /// caller does: in main.swift, on the main actor.)
    public static func awaiting<Value>(
        _ call: String, after operations: [Operation], isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Value
    ) async rethrows -> Value {
        Recorder.current?.report(.suspends, lane: awaitingLane, detail: call)
        defer { Recorder.current?.report(.resumes, lane: awaitingLane, after: operations) }
        return try await body()
    }

    /// The lane of an async function that awaits operations.
    static let awaitingLane = "awaiting task"
}
