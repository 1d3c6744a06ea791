// swift-tools-version: 6.2
// The table of contents of AsyncOperationsPlayground: one line per chapter, in reading order.
// Each chapter is a library (the types that later chapters and the tests reuse) plus a thin
// executable `chapterN` that tells the chapter's story: `swift run chapterN`.
import PackageDescription

let chapters: [Target] =
    chapter(0, "00-OperationBasics", library: "OperationBasics")
    + chapter(1, "01-SyncOnlyOperation", library: "SyncOnly")
    + chapter(2, "02-ManualState", library: "ManualState")
    // Chapter 3 finishes the asynchronous base operation: chapters 4–7 and 9 import AsyncOperations.
    + library("AsyncOperations", in: "03-Cancellation")
    + chapter(3, "03-Cancellation", library: "Cancellation", uses: ["AsyncOperations", "ManualState"])
    + chapter(4, "04-CompletionOperation", library: "CompletionOperations", uses: ["AsyncOperations"])
    + chapter(5, "05-TaskOperation", library: "TaskOperations", uses: ["AsyncOperations"])
    + chapter(6, "06-ResultOperation", library: "ResultOperations", uses: ["AsyncOperations", "ManualState"])
    + chapter(7, "07-ChainedOperations", library: "ChainedOperations", uses: ["AsyncOperations", "ResultOperations"])
    // Chapter 8 needs no OperationQueue, and no base operation. The article's own code is a module of
    // its own (its protocol is named `Operation`, like Foundation's), which chapter 8 also runs.
    + library("PopularCoordinators", in: "08-Coordinators")
    + chapter(8, "08-Coordinators", library: "Coordinators", showing: ["PopularCoordinators"])
    + chapter(9, "09-ProgressSuspendPriority", library: "SteppedWork", uses: ["AsyncOperations", "TaskOperations"])
    + chapter(10, "10-StructuredConcurrency", library: "StructuredConcurrency", uses: ["TaskOperations"])

let supportAndTests: [Target] =
    [
        // Records what a run does, for the pictures in each chapter's timelines folder (off
        // unless a chapter runs with --timeline FOLDER). Every library reports to it.
        .target(name: "Recording", path: "Chapters/Support/Recording"),
        // Pacing, printing and drawing the pictures, for the chapters' executables.
        .target(name: "ChapterSupport", dependencies: ["Recording"], path: "Chapters/Support/ChapterSupport"),
        // Scripts/benchmark runs this in release mode.
        .executableTarget(
            name: "benchmark",
            dependencies: [
                "AsyncOperations", "ManualState", "CompletionOperations", "TaskOperations", "Coordinators",
                "StructuredConcurrency", "AsyncOperationsWithoutRecording",
            ],
            path: "Scripts/Sources/Benchmark"
        ),
        // The benchmark's control: chapter 3's base compiled again, without the recorder (a
        // link to Chapters/03-Cancellation/AsyncOperations, built with every report empty).
        // It depends on Recording only so that `canImport(Recording)` is true there, as in the base.
        .target(
            name: "AsyncOperationsWithoutRecording", dependencies: ["Recording"],
            path: "Scripts/Sources/AsyncOperationsWithoutRecording", swiftSettings: [.define("WITHOUT_RECORDING")]
        ),
        // Scripts/measure-stall: what blocking the cooperative thread pool costs (chapter 5).
        .executableTarget(name: "cooperative-stall", path: "Scripts/Sources/CooperativeStall"),
        // Chapter 4: the article's call site on the article's operation, main queue served (its tests run it).
        .executableTarget(
            name: "chapter4-article", dependencies: ["CompletionOperations", "ChapterSupport"],
            path: "Chapters/04-CompletionOperation/article"),
        // Chapter 5: the article's call site, the same lines in both language modes (its tests run them).
        .executableTarget(
            name: "chapter5-article-swift6", dependencies: ["TaskOperations", "ChapterSupport"],
            path: "Chapters/05-TaskOperation/article-swift6"),
        .executableTarget(
            name: "chapter5-article-swift5", dependencies: ["TaskOperations", "ChapterSupport"],
            path: "Chapters/05-TaskOperation/article-swift5", swiftSettings: [.swiftLanguageMode(.v5)]),
        // Scripts/workshop runs the workshop's runner; its decisions, in WorkshopKit, are tested
        // on recorded runs by WorkshopKitTests.
        .target(name: "WorkshopKit", path: "Scripts/Sources/WorkshopKit"),
        .executableTarget(
            name: "workshop-runner", dependencies: ["WorkshopKit"], path: "Scripts/Sources/WorkshopRunner"),
        .testTarget(name: "WorkshopKitTests", dependencies: ["WorkshopKit"], exclude: ["Fixtures"]),
        // Scenes that need the main thread, which an exit test's body does not run on
        // (MainThreadTests runs them).
        .executableTarget(
            name: "library-scenes", dependencies: ["AsyncOperations", "CompletionOperations", "TestSupport"],
            path: "Tests/LibraryScenes"),
        // Bounded, non-blocking waits shared by the tests and the workshop's (Chapters/Workshop).
        .target(name: "TestSupport", dependencies: ["AsyncOperations", "TaskOperations"], path: "Tests/TestSupport"),
        .testTarget(
            name: "PlaygroundTests",
            dependencies: [
                "OperationBasics", "SyncOnly", "ManualState", "AsyncOperations", "Cancellation", "CompletionOperations",
                "TaskOperations", "ResultOperations", "ChainedOperations", "Coordinators", "PopularCoordinators",
                "SteppedWork", "StructuredConcurrency", "TestSupport", "ChapterSupport", "Recording",
            ]
        ),
    ]

let package = Package(
    name: "AsyncOperationsPlayground",
    // NSLock.withLock needs macOS 13 / iOS 16. The libraries and chapters build for iOS (learners
    // copy the operations into apps); the tests that start processes are macOS and Linux only.
    // Swift 6.2 (the tools version above) is what the tests' exit tests need.
    platforms: [.macOS(.v13), .iOS(.v16)],
    // The workshop's package, Chapters/Workshop, imports the chapters' libraries and TestSupport.
    products: (chapters.filter { $0.type == .regular }.map(\.name) + ["TestSupport"]).map {
        .library(name: $0, targets: [$0])
    },
    targets: chapters + supportAndTests
)

/// A chapter: its library in Chapters/<folder>/<library>, and its executable `chapterN` in
/// Chapters/<folder>/chapterN, which tells the chapter's story with that library (and with the
/// libraries in `showing`, if it also runs an article's own code).
func chapter(
    _ number: Int, _ folder: String, library name: String, uses: [String] = [], showing: [String] = []
) -> [Target] {
    library(name, in: folder, uses: uses) + [
        .executableTarget(
            name: "chapter\(number)",
            dependencies: [.target(name: name), "ChapterSupport"] + showing.map { .target(name: $0) },
            path: "Chapters/\(folder)/chapter\(number)"
        )
    ]
}

/// A library target in Chapters/<folder>/<name>.
func library(_ name: String, in folder: String, uses: [String] = []) -> [Target] {
    [
        .target(
            name: name, dependencies: (uses + ["Recording"]).map { .target(name: $0) },
            path: "Chapters/\(folder)/\(name)")
    ]
}
