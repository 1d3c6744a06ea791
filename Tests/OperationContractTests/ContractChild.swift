import ContractSubjects
import Foundation
import OperationContract
import Testing

#if os(macOS) || os(Linux)
    /// A run of `contract-checks` in a child process, awaited without blocking a thread: an
    /// exit test would hold one of Swift's cooperative threads while its child runs, and these
    /// children run for seconds, while the kit's other checks in this process need those threads.
    struct ContractChild {
        /// What the child printed, line by line.
        let lines: [String]
        /// Its exit status; nil if it had to be killed.
        let status: Int32?

        /// The verdicts it printed, by clause.
        var verdicts: [ContractClause: ClauseVerdict] { ReportLines.verdicts(in: lines) }
        /// The report it printed.
        var report: String { ReportLines.report(in: lines).joined(separator: "\n") }

        /// Runs `contract-checks` with `arguments`; kills it after `seconds`.
        static func run(_ arguments: [String], within seconds: Double = 120) async throws -> ContractChild {
            let executable = productsFolder.appendingPathComponent("contract-checks")
            guard FileManager.default.isExecutableFile(atPath: executable.path) else {
                throw ChildError("\(executable.path) is not built: run `swift build` (or `swift test`) first")
            }
            // Output to a file: a full pipe could block the child, and a child that outlived the
            // test would keep `swift test` waiting on a shared pipe.
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("contract-checks-\(UUID()).out")
            guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
                throw ChildError("cannot create \(output.path)")
            }
            defer { try? FileManager.default.removeItem(at: output) }
            let handle = try FileHandle(forWritingTo: output)
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.standardOutput = handle
            process.standardError = handle
            let exited = Exited()
            process.terminationHandler = { _ in exited.signal() }
            try process.run()
            try handle.close()  // the child has its own copy
            let inTime = await exited.wait(seconds: seconds)
            if !inTime { kill(process.processIdentifier, SIGKILL) }
            let printed = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            return ContractChild(
                lines: printed.components(separatedBy: "\n"), status: inTime ? process.terminationStatus : nil)
        }

        /// Where `swift build` put the executables: beside the tests.
        private static var productsFolder: URL {
            #if os(macOS)
                // The tests are an .xctest bundle next to the executables (read in Apple's
                // documentation; not run on a Mac).
                let tests = Bundle(for: BundleMarker.self)
                if tests.bundlePath.hasSuffix(".xctest") { return tests.bundleURL.deletingLastPathComponent() }
            #endif
            return Bundle.main.bundleURL  // Linux: the tests are an executable in the same folder
        }
    }

    /// A class of the test bundle, for `Bundle(for:)`.
    private final class BundleMarker {}

    /// Signalled once, awaited with a bound.
    private final class Exited: Sendable {
        private let state = Locked<(done: Bool, waiter: CheckedContinuation<Bool, Never>?)>((false, nil))

        func signal() {
            let waiter = state.withLock { state in
                state.done = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: true)
        }

        func wait(seconds: Double) async -> Bool {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state in
                    if !state.done { state.waiter = continuation }
                    return state.done
                }
                if done { return continuation.resume(returning: true) }
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                    let waiter = self.state.withLock { state in
                        defer { state.waiter = nil }
                        return state.waiter
                    }
                    waiter?.resume(returning: false)
                }
            }
        }
    }

    struct ChildError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
#endif

/// The verdicts of a report, by clause.
func verdicts(of report: ContractReport) -> [ContractClause: ClauseVerdict] {
    Dictionary(uniqueKeysWithValues: report.results.map { ($0.clause, $0.verdict) })
}

/// Whether ThreadSanitizer watches this process (Linux): then the versions whose own data races
/// are the point are skipped.
let underThreadSanitizer: Bool = {
    #if os(Linux)
        return dlsym(nil, "__tsan_init") != nil
    #else
        return false
    #endif
}()
