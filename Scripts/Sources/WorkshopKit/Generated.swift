import Foundation

/// The files that follow from the exercises' folders, the one list of exercises: each
/// exercise's Xcode scheme, and the session table of the workshop's page. `Scripts/workshop
/// sync` writes them; `verify` and the tests fail, naming the file, when one is not what sync
/// would write. (The workshop's `Package.swift` has one line per exercise, checked the same way.)
public enum Generated {
    /// What an exercise's stub says of it on its first line:
    /// "// Exercise 2 — announce the state changes (about 10 minutes)."
    public struct About: Equatable, Sendable {
        public var number: Int
        public var title: String
        public var minutes: Int
    }

    /// The minutes a session gives each chapter before its exercise (run it, read its README).
    public static let chapterMinutes = 5

    public static func about(_ exercise: Exercise) throws -> About {
        let text = (try? String(contentsOf: exercise.stub, encoding: .utf8)) ?? ""
        let first = text.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        guard let match = first.wholeMatch(of: /\/\/ Exercise (\d+) — (.+) \(about (\d+) minutes\)\./),
            let number = Int(match.output.1), let minutes = Int(match.output.3)
        else {
            throw WorkshopError(
                "\(exercise.folder)/Reference/Stub.swift: its first line must be \"// Exercise \(exercise.number) — <what the learner writes> (about N minutes).\""
            )
        }
        return About(number: number, title: String(match.output.2), minutes: minutes)
    }

    // MARK: - Xcode schemes

    /// The folder of the shared schemes, in the workshop's package.
    public static func schemesFolder(of workshop: Workshop) -> URL {
        workshop.package.appendingPathComponent(".swiftpm/xcode/xcshareddata/xcschemes")
    }

    /// The scheme named like the exercise's folder: ⌘B builds `ExerciseN`, ⌘U builds and runs
    /// `ExerciseNTests`, and nothing else — so that a broken exercise does not stop another.
    public static func scheme(of exercise: Exercise) -> String {
        func reference(_ name: String, indent: String) -> String {
            """
            \(indent)<BuildableReference
            \(indent)   BuildableIdentifier = "primary"
            \(indent)   BlueprintIdentifier = "\(name)"
            \(indent)   BuildableName = "\(name)"
            \(indent)   BlueprintName = "\(name)"
            \(indent)   ReferencedContainer = "container:">
            \(indent)</BuildableReference>
            """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <Scheme
               LastUpgradeVersion = "2600"
               version = "1.7">
               <BuildAction
                  parallelizeBuildables = "YES"
                  buildImplicitDependencies = "YES">
                  <BuildActionEntries>
                     <BuildActionEntry
                        buildForTesting = "YES"
                        buildForRunning = "YES"
                        buildForProfiling = "YES"
                        buildForArchiving = "YES"
                        buildForAnalyzing = "YES">
            \(reference("Exercise\(exercise.number)", indent: "            "))
                     </BuildActionEntry>
                  </BuildActionEntries>
               </BuildAction>
               <TestAction
                  buildConfiguration = "Debug"
                  selectedDebuggerIdentifier = "Xcode.DebuggerFoundation.Debugger.LLDB"
                  selectedLauncherIdentifier = "Xcode.DebuggerFoundation.Launcher.LLDB"
                  shouldUseLaunchSchemeArgsEnv = "YES">
                  <Testables>
                     <TestableReference
                        skipped = "NO">
            \(reference(exercise.testModule, indent: "            "))
                     </TestableReference>
                  </Testables>
               </TestAction>
               <LaunchAction
                  buildConfiguration = "Debug"
                  selectedDebuggerIdentifier = "Xcode.DebuggerFoundation.Debugger.LLDB"
                  selectedLauncherIdentifier = "Xcode.DebuggerFoundation.Launcher.LLDB"
                  launchStyle = "0"
                  useCustomWorkingDirectory = "NO"
                  ignoresPersistentStateOnLaunch = "NO"
                  debugDocumentVersioning = "YES"
                  debugServiceExtension = "internal"
                  allowLocationSimulation = "YES">
               </LaunchAction>
               <ProfileAction
                  buildConfiguration = "Release"
                  shouldUseLaunchSchemeArgsEnv = "YES"
                  savedToolIdentifier = ""
                  useCustomWorkingDirectory = "NO"
                  debugDocumentVersioning = "YES">
               </ProfileAction>
               <AnalyzeAction
                  buildConfiguration = "Debug">
               </AnalyzeAction>
               <ArchiveAction
                  buildConfiguration = "Release"
                  revealArchiveInOrganizer = "YES">
               </ArchiveAction>
            </Scheme>

            """
    }

    // MARK: - The session table of the workshop's page

    static let tableStart = "<!-- The table below is written by `Scripts/workshop sync`, from each exercise's stub. -->"
    static let tableEnd = "<!-- End of the table written by `Scripts/workshop sync`. -->"

    /// The session table: a row per exercise (its folder links to its chapter's exercise
    /// section), then the totals of exercises 1 to 10 and of all.
    public static func sessionTable(of workshop: Workshop) throws -> [String] {
        let abouts = try workshop.exercises.map { try about($0) }
        var lines = [
            "| # | What you write | Chapter | Reading | Exercise | Total |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for (exercise, about) in zip(workshop.exercises, abouts) {
            lines.append(
                "| \(exercise.number) | \(about.title) | [\(exercise.folder)](../\(exercise.folder)/README.md#exercise) | "
                    + "\(chapterMinutes) min | \(about.minutes) min | \(chapterMinutes + about.minutes) min |")
        }
        let numbers = workshop.exercises.map(\.number)
        for (name, included) in totals(of: numbers) {
            let chosen = abouts.filter { included.contains($0.number) }
            let chapters = chapterMinutes * chosen.count
            let exercises = chosen.map(\.minutes).reduce(0, +)
            lines.append(
                "| | **\(name)** | | \(chapters) min | \(exercises) min | **\(chapters + exercises) min (\(hours(chapters + exercises)))** |"
            )
        }
        return lines
    }

    /// "Exercises 1 to 10" (a session for those who know operations) and "Exercises 0 to 10".
    static func totals(of numbers: [Int]) -> [(String, [Int])] {
        guard let first = numbers.first, let last = numbers.last else { return [] }
        var totals: [(String, [Int])] = []
        if first == 0, numbers.count > 1 { totals.append(("Exercises 1 to \(last)", Array(numbers.dropFirst()))) }
        totals.append(("Exercises \(first) to \(last)", numbers))
        return totals
    }

    /// 180 → "3 h", 190 → "3 h 10 min".
    public static func hours(_ minutes: Int) -> String {
        minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }

    /// `readme` with its session table replaced by `table`.
    static func readme(_ readme: String, withTable table: [String]) throws -> String {
        guard let start = readme.range(of: tableStart), let end = readme.range(of: tableEnd),
            start.upperBound <= end.lowerBound
        else {
            throw WorkshopError("Chapters/Workshop/README.md has lost the markers around its session table")
        }
        return String(readme[..<start.upperBound]) + "\n" + table.joined(separator: "\n") + "\n"
            + readme[end.lowerBound...]
    }

    // MARK: - Checking and writing

    /// Every generated file, with what it must hold; and the schemes that belong to no exercise.
    static func expected(in workshop: Workshop) throws -> (files: [(URL, String)], strays: [URL]) {
        let folder = schemesFolder(of: workshop)
        var files = workshop.exercises.map { exercise in
            (folder.appendingPathComponent("\(exercise.folder).xcscheme"), scheme(of: exercise))
        }
        let page = workshop.package.appendingPathComponent("README.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        files.append((page, try readme(text, withTable: try sessionTable(of: workshop))))
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let strays = names.filter { name in
            name.hasSuffix(".xcscheme") && !workshop.exercises.contains { "\($0.folder).xcscheme" == name }
        }.map { folder.appendingPathComponent($0) }
        return (files, strays)
    }

    /// What is not as `sync` would write it, one sentence each (paths from the repository's root).
    public static func problems(in workshop: Workshop) -> [String] {
        do {
            let (files, strays) = try expected(in: workshop)
            var problems = files.filter { (try? String(contentsOf: $0.0, encoding: .utf8)) != $0.1 }.map { file in
                "\(relative(file.0, in: workshop)) is not what `Scripts/workshop sync` writes from the exercises' folders"
            }
            problems += strays.map { "\(relative($0, in: workshop)) is the scheme of no exercise" }
            problems += manifestProblems(in: workshop)
            return problems.map { $0 + " (run `Scripts/workshop sync`, or fix the exercise's stub)" }
        } catch {
            return ["\(error)"]
        }
    }

    /// The workshop's manifest names each exercise's folder once, in order, and nothing else.
    static func manifestProblems(in workshop: Workshop) -> [String] {
        let manifest = workshop.package.appendingPathComponent("Package.swift")
        let text = (try? String(contentsOf: manifest, encoding: .utf8)) ?? ""
        let named = text.matches(of: /exercise\((\d+), "([^"]+)"/).map { (Int($0.output.1) ?? -1, String($0.output.2)) }
        let folders = workshop.exercises.map { ($0.number, $0.folder) }
        guard !named.elementsEqual(folders, by: { $0 == $1 }) else { return [] }
        return [
            "Chapters/Workshop/Package.swift lists the exercises "
                + named.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + "; the folders are "
                + folders.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
                + " — give each exercise its one line `+ exercise(N, \"NN-Name\", uses: […])`"
        ]
    }

    /// Writes every generated file that differs, and removes stray schemes; returns what it
    /// changed (paths from the repository's root).
    public static func write(in workshop: Workshop) throws -> [String] {
        let (files, strays) = try expected(in: workshop)
        var changed: [String] = []
        for (file, text) in files where (try? String(contentsOf: file, encoding: .utf8)) != text {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
            changed.append("wrote " + relative(file, in: workshop))
        }
        for stray in strays {
            try FileManager.default.removeItem(at: stray)
            changed.append("removed " + relative(stray, in: workshop))
        }
        return changed
    }

    static func relative(_ file: URL, in workshop: Workshop) -> String {
        Explainer.relativePath(file.standardizedFileURL.path, from: workshop.root.path)
    }
}
