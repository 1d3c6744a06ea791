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

/// Package.swift's one list of chapters, read from its text: each call `chapter(N, "Name", …)`,
/// which may run over several lines.
enum ChapterManifest {
    /// A chapter's line: its number and name, the library it also finishes (`finishing:`), the
    /// libraries it uses (`uses:`), and the whole call's text.
    struct Call {
        let number: Int
        let name: String
        let finishing: String?
        let uses: [String]
        let text: Substring
        var folder: String { (number < 10 ? "0" : "") + "\(number)-\(name)" }
    }

    /// Every `chapter(N, "Name", …)` call of `manifest`, in order (not the function's declaration).
    static func calls(in manifest: String) -> [Call] {
        manifest.matches(of: /chapter\(\s*([0-9]+),\s*"([A-Za-z0-9]+)"/).compactMap { match in
            guard let number = Int(match.output.1) else { return nil }
            let text = balanced(manifest[match.range.lowerBound...])
            // The chapter's own arguments: its programs (`programs:`, last) have uses of their own.
            let own = text.range(of: "programs:").map { text[..<$0.lowerBound] } ?? text
            return Call(
                number: number, name: String(match.output.2),
                finishing: own.firstMatch(of: /finishing: "([A-Za-z0-9]+)"/).map { String($0.output.1) },
                uses: own.firstMatch(of: /uses: \[([^\]]*)\]/).map { list in
                    list.output.1.matches(of: /"([A-Za-z0-9]+)"/).map { String($0.output.1) }
                } ?? [], text: text)
        }
    }

    /// `text` up to the parenthesis that closes its first one (string literals aside).
    static func balanced(_ text: Substring) -> Substring {
        var depth = 0
        var inString = false
        for index in text.indices {
            switch text[index] {
            case "\"": inString.toggle()
            case "(" where !inString: depth += 1
            case ")" where !inString:
                depth -= 1
                if depth == 0 { return text[...index] }
            default: break
            }
        }
        return text
    }
}
