import Foundation

/// The chapters, as the repository holds them: one folder `Chapters/NN-Name` each. Every list of
/// chapters the tests use comes from here, so a new chapter folder is checked as soon as it exists.
enum ChapterFolders {
    /// A chapter: its number, its folder's name (`04-CompletionOperations`) and its executable.
    struct Chapter: CustomStringConvertible, Sendable {
        let number: Int
        let folder: String
        var executable: String { "chapter\(number)" }
        var readme: URL { Transcript.packageRoot.appendingPathComponent("Chapters/\(folder)/README.md") }
        var description: String { folder }
    }

    /// Every folder of Chapters whose name is two digits, a dash and a name, in chapter order.
    static let all: [Chapter] = {
        let chapters = Transcript.packageRoot.appendingPathComponent("Chapters")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: chapters.path)) ?? []
        return names.compactMap { name in
            let parts = name.split(separator: "-", maxSplits: 1)
            guard parts.count == 2, parts[0].count == 2, let number = Int(parts[0]) else { return nil }
            return Chapter(number: number, folder: name)
        }
        .sorted { $0.number < $1.number }
    }()
}
