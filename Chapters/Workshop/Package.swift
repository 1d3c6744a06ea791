// swift-tools-version: 6.2
// The workshop: one exercise per chapter, in its own package so that an unfinished exercise
// never breaks the playground's `swift run chapterN` or `swift test`. Open this folder in Xcode
// (or `xed Chapters/Workshop`): every exercise's stub and tests are targets, so the stub is
// indexed and its tests run from the test diamonds; pick the scheme "Exercise N" so that ⌘U
// builds and tests that exercise alone. Scripts/workshop runs them from a terminal.
//
// Each exercise lives in a folder named like its chapter, e.g. 02-ManualState/:
//   Exercise2/<One>.swift   the stub the learner completes (one file)
//   Tests/                  its tests, @Suite("Exercise 2 — ...")
//   Reference/              Stub.swift (a copy of the stub), Solution.swift, Hint.md, and what a
//                           hang (Stuck.md: ## Waiting, ## Busy) or a crash (Crash.md) means here
//   WrongAnswers/, Alternatives/   replacements of the stub that must fail / must pass
// To add one: the folder, its scheme in .swiftpm/xcode/xcshareddata/xcschemes/, and a line
// below. `Scripts/workshop verify` checks that each part is there.
import PackageDescription

// Scripts/workshop sets WORKSHOP_ONLY (for example "5", or "2,5") to build and test just those
// exercises, so that a broken exercise 3 never stops `check 5`. Without it: every exercise.
let only = Context.environment["WORKSHOP_ONLY"].map { $0.split(separator: ",").map(String.init) }

let exercises: [Target] =
    exercise(0, "00-OperationBasics")
    + exercise(1, "01-SyncOnly")
    + exercise(2, "02-ManualState", testsUse: ["OperationContract"])
    + exercise(3, "03-Cancellation", testsUse: ["OperationContract"])
    + exercise(4, "04-CompletionOperations", uses: ["AsyncOperations"], testsUse: ["OperationContract"])
    + exercise(5, "05-TaskOperations", uses: ["AsyncOperations"])
    + exercise(6, "06-ResultOperations", uses: ["AsyncOperations"], testsUse: ["OperationContract"])
    + exercise(7, "07-ChainedOperations", uses: ["ChainedOperations"], testsUse: ["ResultOperations"])
    + exercise(8, "08-Coordinators", uses: ["Coordinators"], testsUse: ["AsyncOperations"])
    + exercise(9, "09-ProgressSuspendPriority", uses: ["AsyncOperations"])
    + exercise(10, "10-StructuredConcurrency", testsUse: ["StructuredConcurrency"])

let package = Package(
    name: "Workshop",
    platforms: [.macOS(.v13), .iOS(.v16)],
    // The playground: this folder's grandparent, whatever the clone's folder is called.
    dependencies: [.package(name: "AsyncOperationsPlayground", path: "../..")],
    targets: exercises
)

/// Exercise `number` in the folder `folder`: the stub the learner completes, which may import
/// the chapters' libraries `uses`, and its tests, which also get TestSupport and `testsUse`.
func exercise(_ number: Int, _ folder: String, uses: [String] = [], testsUse: [String] = []) -> [Target] {
    if let only, !only.contains(String(number)) { return [] }
    return [
        .target(name: "Exercise\(number)", dependencies: uses.map(playground), path: "\(folder)/Exercise\(number)"),
        .testTarget(
            name: "Exercise\(number)Tests",
            dependencies: [.target(name: "Exercise\(number)")] + (uses + testsUse + ["TestSupport"]).map(playground),
            path: "\(folder)/Tests"
        ),
    ]
}

/// A library of the playground (Package.swift two folders up).
func playground(_ library: String) -> Target.Dependency {
    .product(name: library, package: "AsyncOperationsPlayground")
}
