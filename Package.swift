// swift-tools-version: 6.0
// The table of contents of AsyncOperationsPlayground: one line per chapter, in reading order.
// Each chapter is a library (the types that later chapters and the tests reuse) plus a thin
// executable `chapterN` that tells the chapter's story: `swift run chapterN`.
import PackageDescription

let chapters: [Target] =
    chapter(1, "01-SyncOnlyOperation", library: "SyncOnly")
    + chapter(2, "02-ManualState", library: "ManualState")
    // Chapter 3 finishes the asynchronous base operation: chapters 4–7 import AsyncOperations.
    + library("AsyncOperations", in: "03-Cancellation")
    + chapter(3, "03-Cancellation", library: "Cancellation", uses: ["AsyncOperations", "ManualState"])
    + chapter(4, "04-CompletionOperation", library: "CompletionOperations", uses: ["AsyncOperations"])
    + chapter(5, "05-TaskOperation", library: "TaskOperations", uses: ["AsyncOperations"])
    + chapter(6, "06-ResultOperation", library: "ResultOperations", uses: ["AsyncOperations"])
    + chapter(7, "07-ChainedOperations", library: "ChainedOperations", uses: ["AsyncOperations", "ResultOperations"])
    // Chapter 8 needs no OperationQueue, and no base operation.
    + chapter(8, "08-Coordinators", library: "Coordinators")

let package = Package(
    name: "AsyncOperationsPlayground",
    // NSLock.withLock needs macOS 13 / iOS 16; Linux has everything with any Swift 6 toolchain.
    platforms: [.macOS(.v13), .iOS(.v16)],
    targets: [
        // Pacing and printing for the chapters' executables.
        .target(name: "ChapterSupport", path: "Chapters/Support"),
        // Scripts/benchmark runs this in release mode.
        .executableTarget(
            name: "benchmark",
            dependencies: ["AsyncOperations", "ManualState", "TaskOperations", "Coordinators"],
            path: "Scripts/Benchmark"
        ),
        // Scripts/measure-stall: what blocking the cooperative thread pool costs (chapter 5).
        .executableTarget(name: "cooperative-stall", path: "Scripts/CooperativeStall"),
        .testTarget(
            name: "PlaygroundTests",
            dependencies: [
                "SyncOnly", "ManualState", "AsyncOperations", "Cancellation", "CompletionOperations", "TaskOperations",
                "ResultOperations", "ChainedOperations", "Coordinators",
            ]
        ),
    ] + chapters
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
