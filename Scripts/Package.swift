// swift-tools-version: 6.2
// The maintainers' and the workshop's tools, a package of their own so that the package a
// learner opens (the repository's root) holds only the lesson, the kit and their tests. The
// launchers beside this file build what they need from here: Scripts/workshop the workshop's
// runner, Scripts/benchmark and Scripts/measure-stall the measuring tools, in release mode.
// `swift test --package-path Scripts` runs the runner's own tests (CI does).
import PackageDescription

let package = Package(
    name: "Tools",
    platforms: [.macOS(.v13)],
    // The playground: this folder's parent, whatever the clone's folder is called.
    dependencies: [.package(name: "AsyncOperationsPlayground", path: "..")],
    targets: [
        // The workshop's runner (Chapters/Workshop/README.md): its decisions in WorkshopKit,
        // tested on recorded runs (Tests/WorkshopKitTests/Fixtures) and real processes.
        .target(name: "WorkshopKit", dependencies: [playground("AsyncOperations")], path: "Sources/WorkshopKit"),
        .executableTarget(name: "workshop-runner", dependencies: ["WorkshopKit"], path: "Sources/WorkshopRunner"),
        .testTarget(name: "WorkshopKitTests", dependencies: ["WorkshopKit"], exclude: ["Fixtures"]),
        // Scripts/benchmark: what each way of writing an operation costs (Chapters/MEASUREMENTS.md).
        .executableTarget(
            name: "benchmark",
            dependencies: [
                "AsyncOperations", "ManualState", "CompletionOperations", "TaskOperations", "Coordinators",
                "StructuredConcurrency",
            ].map(playground),
            path: "Sources/Benchmark"
        ),
        // Scripts/measure-stall: what blocking the cooperative thread pool costs (chapter 5).
        .executableTarget(name: "cooperative-stall", path: "Sources/CooperativeStall"),
    ]
)

/// A library of the playground (the package in the folder above).
func playground(_ library: String) -> Target.Dependency {
    .product(name: library, package: "AsyncOperationsPlayground")
}
