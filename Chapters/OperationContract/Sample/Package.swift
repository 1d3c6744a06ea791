// swift-tools-version: 6.2
// A small app-like package outside the playground: its own asynchronous base operation and a
// subclass (SampleApp, built with Xcode 26's new-app default isolation, MainActor), and tests
// that check them with the playground's OperationContract kit, from Swift Testing and XCTest.
// Run them from this folder: swift test.
import PackageDescription

let package = Package(
    name: "OperationContractSample",
    platforms: [.macOS(.v13), .iOS(.v16)],
    // The playground: three folders up, whatever the clone's folder is called.
    dependencies: [.package(name: "AsyncOperationsPlayground", path: "../../..")],
    targets: [
        .target(name: "SampleApp", swiftSettings: [.defaultIsolation(MainActor.self)]),
        .testTarget(
            name: "SampleAppTests",
            dependencies: ["SampleApp", .product(name: "OperationContract", package: "AsyncOperationsPlayground")]
        ),
    ]
)
