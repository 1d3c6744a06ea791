// swift-tools-version: 6.2
// The table of contents of AsyncOperationsPlayground: one line per chapter, in reading order.
// Each chapter is a library (the types that later chapters and the tests reuse) plus a thin
// executable `chapterN` that tells the chapter's story: `swift run chapterN`.
import PackageDescription

let chapters: [Target] =
    chapter(0, "OperationBasics")
    + chapter(1, "SyncOnly")
    + chapter(2, "ManualState")
    // Chapter 3 finishes the asynchronous base operation: chapters 4–7 and 9 import AsyncOperations.
    + library("AsyncOperations", in: "03-Cancellation")
    + chapter(3, "Cancellation", uses: ["AsyncOperations", "ManualState"])
    + chapter(4, "CompletionOperations", uses: ["AsyncOperations"])
    // Chapter 5 adds the async/await post's generic operation to its namespace, AsyncAwaitPost (chapter 2).
    + chapter(5, "TaskOperations", uses: ["AsyncOperations", "ManualState"], showing: ["ManualState"])
    + chapter(6, "ResultOperations", uses: ["AsyncOperations", "ManualState"])
    + chapter(7, "ChainedOperations", uses: ["AsyncOperations", "ResultOperations"])
    // Chapter 8 needs no OperationQueue, and no base operation. The article's own code is a module of
    // its own (its protocol is named `Operation`, like Foundation's), which chapter 8 also runs.
    + library("CoordinatingPost", in: "08-Coordinators")
    + chapter(8, "Coordinators", showing: ["CoordinatingPost"])
    + chapter(9, "ProgressSuspendPriority", uses: ["AsyncOperations", "TaskOperations"])
    + chapter(10, "StructuredConcurrency", uses: ["TaskOperations"])

/// The chapters' libraries, in chapter order.
let libraries = chapters.filter { $0.type == .regular }.map(\.name)

// Check your own operation: the contract chapters 1–6 prove, as a kit an app's test target adds to
// check its own Operation subclass. It depends on nothing but the toolchain.
let contractKit: [Target] = [
    .target(name: "OperationContract", path: "Chapters/OperationContract/OperationContract"),
    // The kit's own tests run it on the chapters' versions and on operations broken on purpose
    // (ContractSubjects); contract-checks runs those whose failures hang, in a process of its own.
    .target(
        name: "ContractSubjects",
        dependencies: [
            "OperationContract", "SyncOnly", "ManualState", "AsyncOperations", "CompletionOperations", "TaskOperations",
            "ResultOperations",
        ],
        path: "Tests/ContractSubjects"
    ),
    .executableTarget(name: "contract-checks", dependencies: ["ContractSubjects"], path: "Tests/ContractChecks"),
    .testTarget(name: "OperationContractTests", dependencies: ["OperationContract", "ContractSubjects"]),
]

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
        .target(
            name: "AsyncOperationsWithoutRecording", path: "Scripts/Sources/AsyncOperationsWithoutRecording",
            swiftSettings: [.define("WITHOUT_RECORDING")]
        ),
        // Scripts/measure-stall: what blocking the cooperative thread pool costs (chapter 5).
        .executableTarget(name: "cooperative-stall", path: "Scripts/Sources/CooperativeStall"),
        // Chapter 4: the article's call site on the article's operation, main queue served (its tests run it).
        .executableTarget(
            name: "chapter4-article", dependencies: ["CompletionOperations", "ChapterSupport"],
            path: "Chapters/04-CompletionOperations/article"),
        // Chapter 5: the article's call site, the same lines in both language modes (its tests run them).
        .executableTarget(
            name: "chapter5-article-swift6", dependencies: ["ManualState", "TaskOperations", "ChapterSupport"],
            path: "Chapters/05-TaskOperations/article-swift6"),
        .executableTarget(
            name: "chapter5-article-swift5", dependencies: ["ManualState", "TaskOperations", "ChapterSupport"],
            path: "Chapters/05-TaskOperations/article-swift5", swiftSettings: [.swiftLanguageMode(.v5)]),
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
        // Every chapter's libraries, and the support the tests share.
        .testTarget(
            name: "PlaygroundTests",
            dependencies: libraries.map { .target(name: $0) } + ["TestSupport", "ChapterSupport", "Recording"]
        ),
    ]

let package = Package(
    name: "AsyncOperationsPlayground",
    // NSLock.withLock needs macOS 13 / iOS 16. The libraries and chapters build for iOS (learners
    // copy the operations into apps); the tests that start processes are macOS and Linux only.
    // Swift 6.2 (the tools version above) is what the tests' exit tests need.
    platforms: [.macOS(.v13), .iOS(.v16)],
    // The chapters' libraries and TestSupport, which the workshop's package (Chapters/Workshop)
    // imports, and OperationContract, which an app's test target adds to check its own operation.
    products: (libraries + ["TestSupport", "OperationContract"]).map {
        .library(name: $0, targets: [$0])
    },
    targets: chapters + contractKit + supportAndTests
)

/// Chapter `number`, named `name`: its folder Chapters/NN-<name> (the number in two digits), its
/// library <name> in that folder, and its executable `chapterN` in Chapters/NN-<name>/chapterN,
/// which tells the chapter's story with that library (and with the libraries in `showing`, if it
/// also runs an article's own code).
func chapter(_ number: Int, _ name: String, uses: [String] = [], showing: [String] = []) -> [Target] {
    let folder = (number < 10 ? "0" : "") + "\(number)-\(name)"
    return library(name, in: folder, uses: uses) + [
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
