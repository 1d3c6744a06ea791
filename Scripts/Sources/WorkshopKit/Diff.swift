import Foundation

/// A unified diff of two texts with `context` unchanged lines around each change, from the
/// system's `diff -U` (every macOS and Linux has it), under the names given; empty when the
/// texts are the same.
public func unifiedDiff(from old: String, to new: String, oldName: String, newName: String, context: Int = 3)
    -> [String]
{
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("workshop-diff-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let files = ["old", "new", "diff"].map { folder.appendingPathComponent($0) }
    do {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Both end with a line break, so that diff says nothing of a missing one.
        for (text, file) in zip([old, new], files) {
            try (text.hasSuffix("\n") ? text : text + "\n").write(to: file, atomically: true, encoding: .utf8)
        }
        let diff = try ChildProcess(
            ["diff", "-U", String(context), files[0].path, files[1].path], environment: [:], outputFile: files[2])
        guard diff.wait() == 1 else { return [] }
    } catch {
        return []
    }
    // Its own "---" and "+++" lines name the files it read: the names given instead.
    let lines = ((try? String(contentsOf: files[2], encoding: .utf8)) ?? "").split(separator: "\n").dropFirst(2)
    return ["--- \(oldName)", "+++ \(newName)"] + lines.map(String.init)
}
