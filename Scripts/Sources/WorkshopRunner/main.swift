// The workshop's runner: Scripts/workshop builds it and runs it. Its decisions (what a run's
// output means, what to tell the learner) live in WorkshopKit, which WorkshopKitTests test on
// recorded runs; this file wires them to the terminal.
import Foundation
import WorkshopKit

let environment = ProcessInfo.processInfo.environment
let workingDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
let rootPath =
    environment["WORKSHOP_ROOT"].map { URL(fileURLWithPath: $0) } ?? Workshop.findRoot(from: workingDirectory)
let terminal = Terminal()

do {
    guard let rootPath else {
        throw WorkshopError(
            "run it from the repository (no Chapters/Workshop/Package.swift above this folder)", status: 2)
    }
    let workshop = try Workshop(root: rootPath)
    let command = try Command(
        arguments: Array(CommandLine.arguments.dropFirst()), exercises: workshop.exercises.map(\.number))
    let launcher = environment["WORKSHOP_LAUNCHER"] ?? "Scripts/workshop"
    let runner = Runner(
        workshop: workshop, terminal: terminal,
        explainer: Explainer(workingDirectory: workingDirectory, launcher: launcher))
    runner.interruption.install()
    exit(try runner.perform(command))
} catch {
    terminal.stopReadingKeys()
    FileHandle.standardError.write(Data("workshop: \(error)\n".utf8))
    exit((error as? WorkshopError)?.status ?? 1)
}
