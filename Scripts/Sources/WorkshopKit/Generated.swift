import Foundation

/// The files that follow from the exercises' folders, the one list of exercises: each
/// exercise's Xcode scheme, and the session table of the workshop's page. `Scripts/workshop
/// sync` writes them; `verify` and the tests fail, naming the file, when one is not what sync
/// would write. (The workshop's `Package.swift` has one line per exercise, checked the same way.)
public enum Generated {
    /// The minutes a session gives each chapter before its exercise (run it, read its README).
    static let chapterMinutes = 5

    /// What an exercise's stub says of it on its first line, what the learner writes and its
    /// minutes: "// Exercise 2 — announce the state changes (about 10 minutes)."
    static func about(_ exercise: Exercise) throws -> (title: String, minutes: Int) {
        let text = (try? String(contentsOf: exercise.stub, encoding: .utf8)) ?? ""
        let first = text.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        guard let match = first.wholeMatch(of: /\/\/ Exercise (\d+) — (.+) \(about (\d+) minutes\)\./),
            Int(match.output.1) == exercise.number, let minutes = Int(match.output.3)
        else {
            throw WorkshopError(
                "\(exercise.folder)/Reference/Stub.swift: its first line must be \"// Exercise \(exercise.number) — <what the learner writes> (about N minutes).\""
            )
        }
        return (String(match.output.2), minutes)
    }

    // MARK: - Xcode schemes

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
    /// section), then the totals of exercises 1 to 10 (a session for those who know
    /// operations) and of all.
    public static func sessionTable(of workshop: Workshop) throws -> [String] {
        let rows = try workshop.exercises.map { ($0, try about($0)) }
        var lines = [
            "| # | What you write | Chapter | Reading | Exercise | Total |", "| --- | --- | --- | --- | --- | --- |",
        ]
        for (exercise, about) in rows {
            lines.append(
                "| \(exercise.number) | \(about.title) | [\(exercise.folder)](../\(exercise.folder)/README.md#exercise) | "
                    + "\(chapterMinutes) min | \(about.minutes) min | \(chapterMinutes + about.minutes) min |")
        }
        for session in rows.first?.0.number == 0 && rows.count > 1 ? [Array(rows.dropFirst()), rows] : [rows] {
            guard let first = session.first?.0.number, let last = session.last?.0.number else { continue }
            let (chapters, total) = (
                chapterMinutes * session.count, session.map { chapterMinutes + $0.1.minutes }.reduce(0, +)
            )
            let hours = total % 60 == 0 ? "\(total / 60) h" : "\(total / 60) h \(total % 60) min"
            lines.append(
                "| | **Exercises \(first) to \(last)** | | \(chapters) min | \(total - chapters) min | **\(total) min (\(hours))** |"
            )
        }
        return lines
    }

    /// `text` with the lines between its two markers replaced by `table`.
    static func replacingTable(in text: String, between start: String, and end: String, with table: [String]) throws
        -> String
    {
        guard let from = text.range(of: start), let to = text.range(of: end), from.upperBound <= to.lowerBound else {
            throw WorkshopError("Chapters/Workshop/README.md has lost the markers around a table: \(start)")
        }
        return text[..<from.upperBound] + "\n" + table.joined(separator: "\n") + "\n" + text[to.lowerBound...]
    }

    // MARK: - Checking and writing

    /// Every generated file, with what it must hold; and the schemes that belong to no exercise.
    static func expected(in workshop: Workshop) throws -> (files: [(URL, String)], strays: [URL]) {
        let folder = workshop.package.appendingPathComponent(".swiftpm/xcode/xcshareddata/xcschemes")
        var files = workshop.exercises.map { exercise in
            (folder.appendingPathComponent("\(exercise.folder).xcscheme"), scheme(of: exercise))
        }
        let page = workshop.package.appendingPathComponent("README.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        files.append(
            (page, try replacingTable(in: text, between: tableStart, and: tableEnd, with: sessionTable(of: workshop))))
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
