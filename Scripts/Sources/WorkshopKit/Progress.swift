import Foundation

/// What the runner remembers between commands, in the repository's ignored build folder
/// (.build/workshop): the last verdict of each exercise, with a fingerprint of what it
/// depended on, and the versions `reset` replaced.
public struct Memory: Sendable {
    public let folder: URL

    public init(folder: URL) {
        self.folder = folder
    }

    struct Result: Codable {
        var verdict: Verdict
        var fingerprint: String
    }

    var resultsFile: URL { folder.appendingPathComponent("results.json") }

    func results() -> [String: Result] {
        guard let data = try? Data(contentsOf: resultsFile) else { return [:] }
        return (try? JSONDecoder().decode([String: Result].self, from: data)) ?? [:]
    }

    /// The remembered verdict of `exercise`, if nothing it depends on changed since.
    public func verdict(of exercise: Exercise) -> Verdict? {
        guard let result = results()[String(exercise.number)], result.fingerprint == Self.fingerprint(of: exercise)
        else { return nil }
        return result.verdict
    }

    public func remember(_ verdict: Verdict, of exercise: Exercise) throws {
        var all = results()
        all[String(exercise.number)] = Result(verdict: verdict, fingerprint: Self.fingerprint(of: exercise))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try JSONEncoder().encode(all).write(to: resultsFile, options: .atomic)
    }

    /// A hash of everything a verdict depends on that a learner may change: the exercise's
    /// file, its tests and the workshop's manifest.
    public static func fingerprint(of exercise: Exercise) -> String {
        var files = [
            exercise.file, exercise.directory.deletingLastPathComponent().appendingPathComponent("Package.swift"),
        ]
        let tests = (try? FileManager.default.contentsOfDirectory(atPath: exercise.tests.path)) ?? []
        files += Workshop.swiftFiles(tests).map { exercise.tests.appendingPathComponent($0) }
        // FNV-1a, 64 bits: enough to notice a change. First, the way a check judges: a verdict
        // remembered by an older runner (one run only) no longer counts.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for data in [Data("checked twice; races too".utf8)]
            + files.flatMap({ file in
                [Data(file.lastPathComponent.utf8), (try? Data(contentsOf: file)) ?? Data()]
            })
        {
            for byte in data { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3 }
        }
        return String(hash, radix: 16)
    }

    /// Keeps `contents`, a version of `exercise`'s file that `reset` replaces, in
    /// kept/<exercise's folder>/, named after the moment; returns where it is.
    public func keep(_ contents: Data, of exercise: Exercise, now: Date = Date()) throws -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH-mm-ss"  // no space: the path is printed to be copied
        let kept = folder.appendingPathComponent("kept/\(exercise.folder)")
        try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
        let file = kept.appendingPathComponent("\(formatter.string(from: now))_\(exercise.file.lastPathComponent)")
        try contents.write(to: file, options: .atomic)
        return file
    }
}

/// "[##-.......] 2 of 11 done": one mark per exercise, # passes, - tried and not yet, . to do.
public func progressBar(_ verdicts: [Verdict?]) -> String {
    let marks = verdicts.map { verdict -> Character in
        switch verdict {
        case .passes?: "#"
        case nil: "."
        default: "-"
        }
    }
    let done = verdicts.filter { $0 == .passes }.count
    return "[\(String(marks))] \(done) of \(verdicts.count) done"
}

/// `rows` as lines whose columns line up: each column as wide as its widest cell, counted in
/// characters (✔ and … are one each), two spaces apart; the last column is not padded.
public func columns(_ rows: [[String]]) -> [String] {
    let widths = rows.reduce(into: [Int]()) { widths, row in
        for (index, cell) in row.enumerated() {
            if index < widths.count {
                widths[index] = max(widths[index], cell.count)
            } else {
                widths.append(cell.count)
            }
        }
    }
    return rows.map { row in
        row.enumerated().map { index, cell in
            index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count + 2)
        }.joined()
    }
}
