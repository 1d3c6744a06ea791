import Foundation
import TestSupport
import Testing

#if os(macOS) || os(Linux)
    @Suite("Test support — exit tests leave the cooperative thread pool free")
    struct ExitTestTraitTests {
        /// One exit test per thread of the pool, whose children wait until a task on the pool
        /// has run. Without `.exitTest`, Swift Testing's blocking reads hold every thread of the
        /// pool until the children exit, the task never starts, and the children give up.
        @Test(
            "as many exit tests as the pool has threads, their children waiting for a task of the pool: the task runs",
            .exitTest)
        func poolStaysFree() async {
            let files = Handshake(parent: getpid())
            files.remove()  // a run before, in a process with the same number
            defer { files.remove() }
            let children = ProcessInfo.processInfo.activeProcessorCount
            let priority = Task.currentPriority
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<children {
                    group.addTask {
                        await #expect(processExitsWith: .success) {
                            exit(Handshake(parent: getppid()).childReportsAndWaitsForGo() ? 0 : 1)
                        }
                    }
                }
                // Once every child runs, its exit test reads from it until it exits.
                let deadline = Date(timeIntervalSinceNow: 30 * boundStretch)
                while files.readyChildren < children && Date() < deadline {
                    try? await Task.sleep(nanoseconds: 10_000_000)
                }
                await Task.detached(priority: priority) { files.go() }.value
            }
        }

        /// A source check: an exit test without the trait holds a pool thread while its child
        /// runs, and a loaded machine then times out unrelated tests.
        @Test("every exit test of the package's tests carries .exitTest")
        func everyExitTestHasTheTrait() throws {
            let tests = Transcript.packageRoot.appendingPathComponent("Tests")
            let paths = FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String } ?? []
            var exitTests = 0
            for path in paths where path.hasSuffix(".swift") {
                let text = try String(contentsOf: tests.appendingPathComponent(path), encoding: .utf8)
                let lines = text.components(separatedBy: "\n")
                for (index, line) in lines.enumerated() where line.contains("processExitsWith") {
                    guard let start = lines[..<index].lastIndex(where: { $0.contains("@Test") }) else { continue }
                    let end = lines[start...].firstIndex(where: { $0.contains("func ") }) ?? index
                    let attribute = lines[start..<end].joined(separator: "\n")
                    exitTests += 1
                    #expect(attribute.contains(".exitTest"), "Tests/\(path):\(start + 1): add the .exitTest trait")
                }
            }
            #expect(exitTests > 20, "found only \(exitTests) exit tests")
        }

        /// Files in the temporary folder by which the children and the test meet.
        struct Handshake {
            let ready: URL
            let goFile: URL

            init(parent: pid_t) {
                let folder = FileManager.default.temporaryDirectory
                ready = folder.appendingPathComponent("exit-test-ready-\(parent)")
                goFile = folder.appendingPathComponent("exit-test-go-\(parent)")
            }

            var readyChildren: Int {
                ((try? FileManager.default.contentsOfDirectory(atPath: ready.path)) ?? []).count
            }

            func go() { _ = FileManager.default.createFile(atPath: goFile.path, contents: nil) }

            func remove() {
                try? FileManager.default.removeItem(at: ready)
                try? FileManager.default.removeItem(at: goFile)
            }

            /// In a child: says it runs, then waits for the go; false if it did not come in time.
            func childReportsAndWaitsForGo() -> Bool {
                try? FileManager.default.createDirectory(at: ready, withIntermediateDirectories: true)
                _ = FileManager.default.createFile(
                    atPath: ready.appendingPathComponent("\(getpid())").path, contents: nil)
                let deadline = Date(timeIntervalSinceNow: 30 * boundStretch)
                while Date() < deadline {
                    if FileManager.default.fileExists(atPath: goFile.path) { return true }
                    usleep(10_000)
                }
                return false
            }
        }
    }
#endif
