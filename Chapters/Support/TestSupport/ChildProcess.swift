import Foundation

#if os(macOS) || os(Linux)
    /// One of the package's executables, run as a child process that a test can give up on:
    /// its output goes to files (a full pipe could block the child for ever, and a child that
    /// outlived the tests would keep `swift test` waiting on a shared pipe), and a child that
    /// does not exit in time is killed instead of hanging the test. Awaited, never blocking a
    /// thread (an exit test's child holds one of Swift's cooperative threads while it runs).
    public final class ChildProcess {
        public let name: String
        public let arguments: [String]
        private let process: Process
        private let outputFile: URL
        private let errorFile: URL
        private let exited = Flag()

        /// Starts the executable `name` from the products folder, with `arguments`, and with
        /// `environment` added.
        public init(_ name: String, arguments: [String] = [], environment: [String: String] = [:]) throws {
            let executable = Self.productsDirectory.appendingPathComponent(name)
            guard FileManager.default.isExecutableFile(atPath: executable.path) else {
                throw ChildProcessError(
                    """
                    \(executable.path) is not built. The tests run executables that the build put \
                    next to them: run `swift build` (or `swift test`, which builds every target) \
                    first. In Xcode, build the package (Product > Build) before testing.
                    """)
            }
            self.name = name
            self.arguments = arguments
            let files = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
            outputFile = files.appendingPathExtension("out")
            errorFile = files.appendingPathExtension("err")
            for file in [outputFile, errorFile] {
                guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                    throw ChildProcessError("cannot create \(file.path)")
                }
            }
            let output = try FileHandle(forWritingTo: outputFile)
            let errors = try FileHandle(forWritingTo: errorFile)
            defer {  // the child has its own copies
                try? output.close()
                try? errors.close()
            }
            process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardOutput = output
            process.standardError = errors
            process.terminationHandler = { [exited] _ in exited.raise() }
            try process.run()
        }

        deinit {
            terminate()
            try? FileManager.default.removeItem(at: outputFile)
            try? FileManager.default.removeItem(at: errorFile)
        }

        /// True once the child has exited, false if `seconds` pass first (`Flag.wait`: on
        /// Linux, a child that still works keeps the wait going); it then keeps running.
        public func exits(within seconds: Double) async -> Bool {
            await exited.wait(seconds: seconds)
        }

        /// True if the child is still running once `seconds` have passed: for a child that
        /// must not exit (`Flag.staysLowered`).
        public func keepsRunning(for seconds: Double) async -> Bool {
            await exited.staysLowered(for: seconds)
        }

        /// The exit status once the child has exited; nil while it runs (Foundation traps if
        /// asked for the status of a running process).
        public var status: Int32? { exited.isRaised ? process.terminationStatus : nil }

        /// The lines the child has printed to standard output so far.
        public var printedLines: [String] {
            let printed = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
            if printed.isEmpty { return [] }
            return (printed.hasSuffix("\n") ? String(printed.dropLast()) : printed).components(separatedBy: "\n")
        }

        /// What the child has printed to standard error so far.
        public var errorOutput: String {
            (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        }

        /// Kills a child that has not exited; a test that gave up on it calls this. SIGKILL,
        /// not `Process.terminate()`'s SIGTERM: a child inherits the signal mask of the thread
        /// that started it, and on Linux a child started from a test had SIGTERM blocked.
        public func terminate() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }

        /// Where the build put the executables: the folder that holds the tests themselves.
        public static var productsDirectory: URL {
            #if os(macOS)
                // The tests are in an .xctest bundle next to the executables. `swift test` loads it
                // through swiftpm-testing-helper and Xcode through its own runner, so it need not
                // be in `Bundle.allBundles`; `Bundle(for:)` finds the bundle that holds this code.
                // (Read from Apple's documentation; not verified: not yet run on a Mac.)
                let tests = Bundle(for: TestBundleMarker.self)
                if tests.bundlePath.hasSuffix(".xctest") {
                    return tests.bundleURL.deletingLastPathComponent()
                }
            #endif
            // Linux: the tests are an executable of their own, in the products folder.
            return Bundle.main.bundleURL
        }
    }

    /// A class compiled into the test bundle (TestSupport is linked into it), so that
    /// `Bundle(for:)` can find that bundle.
    private final class TestBundleMarker {}

    /// Why a child could not be started.
    public struct ChildProcessError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
#endif
