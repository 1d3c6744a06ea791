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
    // Chapter 8 needs no OperationQueue, and no base operation.
    + chapter(8, "08-Coordinators", library: "Coordinators")
    + chapter(9, "09-ProgressSuspendPriority", library: "SteppedWork", uses: ["AsyncOperations", "TaskOperations"])
    + chapter(10, "10-StructuredConcurrency", library: "StructuredConcurrency", uses: ["TaskOperations"])

// The workshop (Scripts/workshop): one exercise per chapter, a stub the learner completes.
// Exercises are not part of the everyday build, so that an unfinished one never breaks
// `swift run chapterN` or `swift test`: Scripts/workshop sets WORKSHOP_EXERCISES (for example
// "2", or "1 2 3") and builds just those, with the chapters' libraries, in .build/workshop.
//
// To add exercise N to chapter folder Chapters/NN-Name:
//   1. Chapters/NN-Name/ExerciseN/<One>.swift         the stub the learner edits (one file)
//   2. Chapters/NN-Name/ExerciseNReference/            Stub.swift (a copy of that file),
//      Solution.swift, Hint.md, and Stuck.md (what a check that ran out of time usually means)
//   3. Tests/WorkshopTests/ExerciseN/ExerciseNTests.swift   @Suite("Exercise N — ...")
//   4. one line below. Scripts/workshop finds exercises by their folders; `verify` then checks
//      that the solution passes and the stub fails.
let workshopExercises = (Context.environment["WORKSHOP_EXERCISES"] ?? "").split(separator: " ").map(String.init)
let exercises: [Target] =
    exercise(0, "00-OperationBasics")
    + exercise(1, "01-SyncOnlyOperation")
    + exercise(2, "02-ManualState")
    + exercise(3, "03-Cancellation")
    + exercise(4, "04-CompletionOperation", uses: ["AsyncOperations"])
    + exercise(5, "05-TaskOperation", uses: ["AsyncOperations"])
    + exercise(6, "06-ResultOperation", uses: ["AsyncOperations"])
    + exercise(7, "07-ChainedOperations", uses: ["ChainedOperations"])
    + exercise(8, "08-Coordinators", uses: ["Coordinators"])
    + exercise(9, "09-ProgressSuspendPriority", uses: ["AsyncOperations"])
    + exercise(10, "10-StructuredConcurrency")

let everyday: [Target] =
    [
        // Pacing and printing for the chapters' executables.
        .target(name: "ChapterSupport", path: "Chapters/Support"),
        // Scripts/benchmark runs this in release mode.
        .executableTarget(
            name: "benchmark",
            dependencies: [
                "AsyncOperations", "ManualState", "TaskOperations", "Coordinators", "StructuredConcurrency",
            ],
            path: "Scripts/Sources/Benchmark"
        ),
        // Scripts/measure-stall: what blocking the cooperative thread pool costs (chapter 5).
        .executableTarget(name: "cooperative-stall", path: "Scripts/Sources/CooperativeStall"),
        // Chapter 5: the article's call site, the same lines in both language modes (its tests run them).
        .executableTarget(
            name: "chapter5-article-swift6", dependencies: ["TaskOperations"],
            path: "Chapters/05-TaskOperation/article-swift6"),
        .executableTarget(
            name: "chapter5-article-swift5", dependencies: ["TaskOperations"],
            path: "Chapters/05-TaskOperation/article-swift5", swiftSettings: [.swiftLanguageMode(.v5)]),
        // Bounded, non-blocking waits shared by the tests and the workshop's tests.
        .target(name: "TestSupport", dependencies: ["AsyncOperations", "TaskOperations"], path: "Tests/TestSupport"),
        .testTarget(
            name: "PlaygroundTests",
            dependencies: [
                "OperationBasics", "SyncOnly", "ManualState", "AsyncOperations", "Cancellation", "CompletionOperations",
                "TaskOperations", "ResultOperations", "ChainedOperations", "Coordinators", "SteppedWork",
                "StructuredConcurrency", "TestSupport",
            ]
        ),
    ] + chapters

let package = Package(
    name: "AsyncOperationsPlayground",
    // NSLock.withLock needs macOS 13 / iOS 16. The libraries and chapters build for iOS (learners
    // copy the operations into apps); the tests that start processes are macOS and Linux only.
    // Swift 6.2 (the tools version above) is what the tests' exit tests need.
    platforms: [.macOS(.v13), .iOS(.v16)],
    // For the workshop: the libraries (no executables, no other tests) and the chosen exercises.
    targets: workshopExercises.isEmpty ? everyday : everyday.filter { $0.type == .regular } + exercises
)

/// A chapter: its library in Chapters/<folder>/<library>, and its executable `chapterN` in
/// Chapters/<folder>/chapterN, which tells the chapter's story with that library.
func chapter(_ number: Int, _ folder: String, library name: String, uses: [String] = []) -> [Target] {
    library(name, in: folder, uses: uses) + [
        .executableTarget(
            name: "chapter\(number)",
            dependencies: [.target(name: name), "ChapterSupport"],
            path: "Chapters/\(folder)/chapter\(number)"
        )
    ]
}

/// A library target in Chapters/<folder>/<name>.
func library(_ name: String, in folder: String, uses: [String] = []) -> [Target] {
    [.target(name: name, dependencies: uses.map { .target(name: $0) }, path: "Chapters/\(folder)/\(name)")]
}

/// Workshop exercise `number`, if the workshop asked for it: the stub the learner completes,
/// in Chapters/<folder>/ExerciseN, and its tests, in Tests/WorkshopTests/ExerciseN, which may
/// use every chapter's library and TestSupport.
@MainActor func exercise(_ number: Int, _ folder: String, uses: [String] = []) -> [Target] {
    guard workshopExercises.contains("\(number)") else { return [] }
    let libraries = chapters.filter { $0.type == .regular }.map { Target.Dependency.target(name: $0.name) }
    return [
        .target(
            name: "Exercise\(number)", dependencies: uses.map { .target(name: $0) },
            path: "Chapters/\(folder)/Exercise\(number)"),
        .testTarget(
            name: "Exercise\(number)Tests",
            dependencies: [.target(name: "Exercise\(number)"), "TestSupport"] + libraries,
            path: "Tests/WorkshopTests/Exercise\(number)"),
    ]
}
