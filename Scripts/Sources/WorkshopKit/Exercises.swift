import Foundation

/// One exercise of the workshop, found by its folder: Chapters/Workshop/NN-Name/ExerciseN/.
public struct Exercise: Equatable, Sendable {
    public let number: Int
    /// The folder's name, the same as its chapter's: "02-ManualState".
    public let folder: String
    /// The chapter's title, from its README's first line ("Managing the state by hand").
    public let title: String
    /// Absolute paths.
    public let directory: URL
    public let file: URL
    public var chapterReadme: URL {
        directory.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("\(folder)/README.md")
    }

    public var reference: URL { directory.appendingPathComponent("Reference") }
    public var tests: URL { directory.appendingPathComponent("Tests") }
    public var stub: URL { reference.appendingPathComponent("Stub.swift") }
    public var solution: URL { reference.appendingPathComponent("Solution.swift") }
    public var hint: URL { reference.appendingPathComponent("Hint.md") }
    public var stuck: URL { reference.appendingPathComponent("Stuck.md") }
    public var crash: URL { reference.appendingPathComponent("Crash.md") }
    /// What a data race means here; an exercise that has it is checked for races too.
    public var race: URL { reference.appendingPathComponent("Race.md") }
    /// Whether a passing check runs the tests again under ThreadSanitizer: the exercises about
    /// state that several threads share (those with a Race.md).
    public var checksForRaces: Bool { FileManager.default.fileExists(atPath: race.path) }
    public var wrongAnswers: URL { directory.appendingPathComponent("WrongAnswers") }
    public var alternatives: URL { directory.appendingPathComponent("Alternatives") }
    /// The module of its tests, as the event stream names it.
    public var testModule: String { "Exercise\(number)Tests" }
    /// The contract kit's suite, if the exercise has one (`Tests/ExerciseNContractTests.swift`,
    /// suite `ExerciseNContractTests`): a check runs it only once the exercise's own tests
    /// pass, in the run that confirms the pass (a `--skip` pattern).
    public var contractSuite: String { "\(testModule)\\.Exercise\(number)ContractTests" }
}

/// The repository the runner works in, and its exercises.
public struct Workshop: Sendable {
    /// The playground's root: the folder with Package.swift, Chapters/ and Scripts/.
    public let root: URL
    public let exercises: [Exercise]

    public var package: URL { root.appendingPathComponent("Chapters/Workshop") }

    /// Finds the exercises under `root`, in order: each folder "NN-Name" of the workshop's
    /// package with a Swift file in ExerciseN/.
    public init(root: URL) throws {
        self.root = root.standardizedFileURL
        let package = self.root.appendingPathComponent("Chapters/Workshop")
        let manager = FileManager.default
        guard manager.fileExists(atPath: package.appendingPathComponent("Package.swift").path) else {
            throw WorkshopError("no workshop at \(package.path) (its Package.swift is missing)")
        }
        exercises = try manager.contentsOfDirectory(atPath: package.path).sorted().compactMap { folder in
            let digits = folder.prefix { $0.isNumber }
            guard digits.count == 2, folder.dropFirst(2).hasPrefix("-"), let number = Int(digits) else { return nil }
            let directory = package.appendingPathComponent(folder)
            let stubFolder = directory.appendingPathComponent("Exercise\(number)")
            let files = (try? manager.contentsOfDirectory(atPath: stubFolder.path)).map(Self.swiftFiles)
            guard let file = files?.first else { return nil }
            // "Managing the state by hand" from "# Chapter 2 — Managing the state by hand".
            let readme = root.appendingPathComponent("Chapters/\(folder)/README.md")
            let heading = (try? String(contentsOf: readme, encoding: .utf8))?.split(separator: "\n").first ?? ""
            let title = heading.range(of: " — ").map { String(heading[$0.upperBound...]) } ?? folder
            return Exercise(
                number: number, folder: folder, title: title, directory: directory,
                file: stubFolder.appendingPathComponent(file))
        }
    }

    /// The root above `start` (or `start` itself): the first folder that holds
    /// Chapters/Workshop/Package.swift.
    public static func findRoot(from start: URL) -> URL? {
        var folder = start.standardizedFileURL
        while !FileManager.default.fileExists(
            atPath: folder.appendingPathComponent("Chapters/Workshop/Package.swift").path)
        {
            guard folder.path != "/" else { return nil }
            folder.deleteLastPathComponent()
        }
        return folder
    }

    /// The Swift files among `names`, sorted: an editor's files beside them (Emacs's lock file
    /// `.#File.swift`, any hidden file) are not the exercise's.
    public static func swiftFiles(_ names: [String]) -> [String] {
        names.filter { $0.hasSuffix(".swift") && !$0.hasPrefix(".") && !$0.hasPrefix("#") }.sorted()
    }

    public func exercise(_ number: Int) -> Exercise? {
        exercises.first { $0.number == number }
    }
}

/// A problem the runner reports in a sentence, with exit status 2 (a usage error) or 1.
public struct WorkshopError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public let status: Int32

    public init(_ description: String, status: Int32 = 1) {
        self.description = description
        self.status = status
    }
}
