import Foundation
import TestSupport

#if os(macOS) || os(Linux)
    /// Runs the Swift compiler on small files that import the package's libraries: what a README
    /// shows as code that must not compile is compiled, and what the compiler says is read.
    ///
    /// The libraries are the modules the build made for the tests (`swift build` puts them in
    /// the products folder's `Modules`), when it holds every one needed, each newer than its
    /// sources: one short compiler run per file. Otherwise (Xcode's products have another
    /// layout) they are built from their sources into a folder of their own first.
    struct SwiftCompiler {
        /// The compiler and the arguments that come before swiftc's own; nil if there is none.
        static let command: (executable: URL, arguments: [String])? = {
            #if os(macOS)
                // xcrun finds the compiler and the SDK of the selected Xcode (read, not verified:
                // not yet run on a Mac).
                return FileManager.default.isExecutableFile(atPath: "/usr/bin/xcrun")
                    ? (URL(fileURLWithPath: "/usr/bin/xcrun"), ["swiftc"]) : nil
            #else
                let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
                for folder in path.split(separator: ":") {
                    let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("swiftc")
                    if FileManager.default.isExecutableFile(atPath: candidate.path) { return (candidate, []) }
                }
                return nil
            #endif
        }()

        /// Where the files are written (and the modules built, when the build's cannot be used).
        let folder: URL
        /// Where the modules are.
        let modules: URL

        init(folder: URL, modules: URL? = nil) {
            self.folder = folder
            self.modules = modules ?? folder
        }

        /// A fresh folder with the package's libraries that `source` imports built into it, each
        /// after the libraries its own files import.
        static func importedBy(_ source: String) async throws -> SwiftCompiler {
            try await building(imports(in: source))
        }

        /// A fresh folder, and `libraries` of the package: the build's modules if they are all
        /// there and up to date, else built into that folder, each after the libraries its own
        /// files import.
        static func building(_ libraries: [String]) async throws -> SwiftCompiler {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swiftc-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let needed = try buildOrder(of: libraries)
            if let built = builtModules(holding: needed) { return SwiftCompiler(folder: folder, modules: built) }
            let compiler = SwiftCompiler(folder: folder)
            for module in needed {
                let output = try await compiler.swiftc(
                    [
                        "-emit-module", "-parse-as-library", "-module-name", module.name, "-I", folder.path,
                        "-emit-module-path", folder.appendingPathComponent("\(module.name).swiftmodule").path,
                    ] + module.sources)
                guard output.status == 0 else {
                    throw TranscriptError("the library \(module.name) does not compile:\n\(output.text)")
                }
            }
            return compiler
        }

        func removeFolder() { try? FileManager.default.removeItem(at: folder) }

        /// Type-checks `source` as a file of its own: "" if it compiles, else what the compiler said.
        func typecheck(_ source: String) async throws -> String {
            let file = folder.appendingPathComponent("client-\(UUID().uuidString).swift")
            try source.write(to: file, atomically: true, encoding: .utf8)
            let output = try await swiftc(["-typecheck", "-I", modules.path, file.path])
            return output.status == 0 ? "" : output.text
        }

        /// Type-checks `source` as one more file of the package's library `library` (whose own
        /// imports must be built here): "" if it compiles, else what the compiler said.
        func typecheck(_ source: String, asPartOf library: String) async throws -> String {
            guard let library = Self.library(named: library) else { throw TranscriptError("no library \(library)") }
            let file = folder.appendingPathComponent("part-\(UUID().uuidString).swift")
            try source.write(to: file, atomically: true, encoding: .utf8)
            let output = try await swiftc(
                ["-typecheck", "-parse-as-library", "-module-name", library.name, "-I", modules.path]
                    + library.sources + [file.path])
            return output.status == 0 ? "" : output.text
        }

        /// The build's module folder, if it holds a module for each of `libraries` that is
        /// newer than every one of its sources.
        static func builtModules(holding libraries: [Library]) -> URL? {
            let folder = ChildProcess.productsDirectory.appendingPathComponent("Modules")
            func modified(_ path: String) -> Date? {
                (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            }
            for library in libraries {
                // The compiler leaves a module file as it was when its interface did not change:
                // its other outputs say when the library was last built.
                let outputs = ["swiftmodule", "swiftdoc", "swiftsourceinfo", "o"].compactMap { kind in
                    modified(folder.appendingPathComponent("\(library.name).\(kind)").path)
                }
                guard modified(folder.appendingPathComponent("\(library.name).swiftmodule").path) != nil,
                    let built = outputs.max()
                else { return nil }
                for source in library.sources where modified(source).map({ $0 > built }) ?? true { return nil }
            }
            return folder
        }

        // MARK: The package's libraries

        /// A library of the package: its module name and its Swift files.
        struct Library {
            let name: String
            let sources: [String]
        }

        /// The libraries of the package: each in a folder of its name, one level under a folder of
        /// `Chapters` (`Chapters/06-ResultOperations/ResultOperations`, `Chapters/Support/Recording`).
        static func library(named name: String) -> Library? {
            let chapters = Transcript.packageRoot.appendingPathComponent("Chapters")
            let manager = FileManager.default
            for parent in (try? manager.contentsOfDirectory(atPath: chapters.path)) ?? [] {
                let folder = chapters.appendingPathComponent(parent).appendingPathComponent(name)
                guard let names = try? manager.contentsOfDirectory(atPath: folder.path) else { continue }
                let sources = names.filter { $0.hasSuffix(".swift") }.sorted()
                if !sources.isEmpty {
                    return Library(name: name, sources: sources.map { folder.appendingPathComponent($0).path })
                }
            }
            return nil
        }

        /// The modules `source` imports.
        static func imports(in source: String) -> [String] {
            source.components(separatedBy: "\n").compactMap { line in
                let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ")
                return words.count == 2 && words[0] == "import" ? String(words[1]) : nil
            }
        }

        /// The package's libraries among `modules`, and those they import, each after its own imports.
        static func buildOrder(of modules: [String]) throws -> [Library] {
            var order: [Library] = []
            var visiting: Set<String> = []
            func visit(_ name: String) throws {
                guard !order.contains(where: { $0.name == name }), let library = library(named: name) else { return }
                guard visiting.insert(name).inserted else {
                    throw TranscriptError("libraries import each other: \(name)")
                }
                for file in library.sources {
                    for module in imports(in: try String(contentsOfFile: file, encoding: .utf8)) { try visit(module) }
                }
                order.append(library)
            }
            for module in modules { try visit(module) }
            return order
        }

        /// Runs swiftc in Swift 6 language mode, bounded; its status and everything it printed.
        private func swiftc(_ arguments: [String]) async throws -> (status: Int32, text: String) {
            guard let command = Self.command else { throw TranscriptError("no compiler") }
            let outputFile = folder.appendingPathComponent("swiftc-\(UUID().uuidString).out")
            guard FileManager.default.createFile(atPath: outputFile.path, contents: nil) else {
                throw TranscriptError("cannot create \(outputFile.path)")
            }
            let output = try FileHandle(forWritingTo: outputFile)
            defer { try? output.close() }
            let process = Process()
            process.executableURL = command.executable
            process.arguments = command.arguments + ["-swift-version", "6"] + arguments
            process.standardOutput = output
            process.standardError = output
            let exited = Flag()
            process.terminationHandler = { _ in exited.raise() }
            try process.run()
            guard await exited.wait(seconds: 300) else {
                process.terminate()
                throw TranscriptError("swiftc did not finish within 300 s")
            }
            return (process.terminationStatus, try String(contentsOf: outputFile, encoding: .utf8))
        }
    }
#endif
