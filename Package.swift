// swift-tools-version: 6.2
// The table of contents of AsyncOperationsPlayground: one line per chapter, in reading order.
// Each chapter is a library (the types that later chapters and the tests reuse) plus a thin
// executable `chapterN` that tells the chapter's story: `swift run chapterN`. A chapter's line
// also names the other programs in its folder, which its tests run.
// The maintainers' and the workshop's tools are a package of their own: Scripts/Package.swift.
import PackageDescription

let chapters: [Target] =
    chapter(0, "OperationBasics")
    + chapter(1, "SyncOnly")
    + chapter(2, "ManualState")
    // Chapter 3 finishes the asynchronous base operation: chapters 4–7 and 9 import AsyncOperations.
    // No chapter library depends on a support target: the pictures watch them from outside.
    // It ends with the contract kit run on the articles' bases (the kit's subjects).
    + chapter(
        3, "Cancellation", finishing: "AsyncOperations", uses: ["AsyncOperations", "ManualState"],
        programs: [program("contract", uses: ["ContractSubjects"])])
    // Its program `article` is the article's call site on the article's operation, main queue served.
    + chapter(4, "CompletionOperations", uses: ["AsyncOperations"], programs: [program("article")])
    // Chapter 5 adds the async/await post's generic operation to its namespace, AsyncAwaitPost
    // (chapter 2). Its programs are the article's call site, the same lines in both language modes.
    + chapter(
        5, "TaskOperations", uses: ["AsyncOperations", "ManualState"], showing: ["ManualState"],
        programs: [
            program("article-swift6", uses: ["ManualState"]),
            program("article-swift5", uses: ["ManualState"], swift5: true),
        ])
    + chapter(6, "ResultOperations", uses: ["AsyncOperations", "ManualState"])
    + chapter(7, "ChainedOperations", uses: ["AsyncOperations", "ResultOperations"])
    // Chapter 8 needs no OperationQueue, and no base operation. The article's own code is a module of
    // its own (its protocol is named `Operation`, like Foundation's), which chapter 8 also runs.
    + chapter(8, "Coordinators", finishing: "CoordinatingPost", showing: ["CoordinatingPost"])
    + chapter(9, "ProgressSuspendPriority", uses: ["AsyncOperations", "TaskOperations"])
    + chapter(10, "StructuredConcurrency", uses: ["TaskOperations"])

/// The chapters' libraries, in chapter order.
let libraries = chapters.filter { $0.type == .regular }.map(\.name)

// Check your own operation: the contract chapters 1–6 prove, as a kit an app's test target adds to
// check its own Operation subclass. It depends on nothing but the toolchain.
let contractKit: [Target] = [
    .target(name: "OperationContract", path: "Chapters/OperationContract/OperationContract"),
    // What the kit's tests and chapter 3 check with it: the chapters' versions and operations
    // broken on purpose. contract-checks runs a check whose failures hang in a process of its own.
    .target(
        name: "ContractSubjects",
        dependencies: [
            "OperationContract", "SyncOnly", "ManualState", "AsyncOperations", "CompletionOperations", "TaskOperations",
            "ResultOperations",
        ],
        path: "Chapters/OperationContract/Subjects"
    ),
    .executableTarget(
        name: "contract-checks", dependencies: ["ContractSubjects"], path: "Chapters/OperationContract/ContractChecks"),
    .testTarget(
        name: "OperationContractTests", dependencies: ["OperationContract", "ContractSubjects", "TestSupport"]),
]

// What draws the chapters' pictures, and what the tests share.
let support: [Target] = [
    // Records what a run does, for the pictures in each chapter's timelines folder (off
    // unless a chapter runs with --timeline FOLDER), as the chapters' executables observe it.
    .target(name: "Recording", path: "Chapters/Support/Recording"),
    // Pacing, printing, the reporting subclasses and drawing the pictures, for the executables.
    .target(name: "ChapterSupport", dependencies: ["Recording"], path: "Chapters/Support/ChapterSupport"),
    // Bounded, non-blocking waits shared by the tests and the workshop's (Chapters/Workshop),
    // built on the contract kit's, which are written once, there.
    .target(
        name: "TestSupport", dependencies: ["AsyncOperations", "TaskOperations", "OperationContract"],
        path: "Chapters/Support/TestSupport"),
    // Scenes that need the main thread, which an exit test's body does not run on
    // (MainThreadTests runs them).
    .executableTarget(
        name: "library-scenes", dependencies: ["AsyncOperations", "CompletionOperations", "TestSupport"],
        path: "Chapters/Support/LibraryScenes"),
]

// Every chapter's tests, in Tests/PlaygroundTests/NN-Name, and the tests of the whole package.
let tests: [Target] = [
    .testTarget(
        name: "PlaygroundTests",
        dependencies: libraries.map { .target(name: $0) } + [
            "TestSupport", "ChapterSupport", "Recording", "OperationContract",
        ]
    )
]

let package = Package(
    name: "AsyncOperationsPlayground",
    // NSLock.withLock needs macOS 13 / iOS 16. The libraries and chapters build for iOS (learners
    // copy the operations into apps); the tests that start processes are macOS and Linux only.
    // Swift 6.2 (the tools version above) is what the tests' exit tests need.
    platforms: [.macOS(.v13), .iOS(.v16)],
    // The chapters' libraries and TestSupport, which the workshop's package (Chapters/Workshop)
    // and the tools' package (Scripts) import, and OperationContract, which an app's test target
    // adds to check its own operation.
    products: (libraries + ["TestSupport", "OperationContract"]).map {
        .library(name: $0, targets: [$0])
    },
    targets: chapters + contractKit + support + tests
)

/// Chapter `number`, named `name`: its folder Chapters/NN-<name> (the number in two digits), its
/// library <name> in that folder, and its executable `chapterN` in Chapters/NN-<name>/chapterN,
/// which tells the chapter's story with that library (and with the libraries in `showing`, if it
/// also runs an article's own code).
///
/// - Parameters:
///   - finishing: a second library in the folder, which the chapter finishes and later
///     chapters import (chapter 3's base operation, chapter 8's article code).
///   - programs: the chapter's other programs, in folders of their own beside `chapterN`.
func chapter(
    _ number: Int, _ name: String, finishing: String? = nil, uses: [String] = [], showing: [String] = [],
    programs: [Program] = []
) -> [Target] {
    let folder = (number < 10 ? "0" : "") + "\(number)-\(name)"
    let extra = finishing.map { [Target.target(name: $0, path: "Chapters/\(folder)/\($0)")] } ?? []
    return extra + [
        .target(name: name, dependencies: uses.map { .target(name: $0) }, path: "Chapters/\(folder)/\(name)"),
        .executableTarget(
            name: "chapter\(number)",
            dependencies: [.target(name: name), "ChapterSupport"] + showing.map { .target(name: $0) },
            path: "Chapters/\(folder)/chapter\(number)"
        ),
    ]
        + programs.map { program in
            .executableTarget(
                name: "chapter\(number)-\(program.folder)",
                dependencies: [.target(name: name), "ChapterSupport"] + program.uses.map { .target(name: $0) },
                path: "Chapters/\(folder)/\(program.folder)",
                swiftSettings: program.swift5 ? [.swiftLanguageMode(.v5)] : nil
            )
        }
}

/// A program of a chapter besides `chapterN`: `chapterN-<folder>`, in Chapters/NN-<name>/<folder>.
struct Program {
    let folder: String
    let uses: [String]
    let swift5: Bool
}

/// A chapter's program in `folder`, with the chapter's library, ChapterSupport and `uses`; built
/// in Swift 5 language mode if `swift5`.
func program(_ folder: String, uses: [String] = [], swift5: Bool = false) -> Program {
    Program(folder: folder, uses: uses, swift5: swift5)
}
