import Foundation
import Testing

/// The sizes that `Chapters/MEASUREMENTS.md` gives for the chapters' pictures, checked against
/// the files: the page states bounds, and this test reads them from the page.
@Suite("The pictures' sizes are what the measurements page says")
struct PictureSizeTests {
    @Test("no picture is larger, and all of them together are no larger, than MEASUREMENTS.md says")
    func withinTheMeasuredSizes() throws {
        let root = Transcript.packageRoot
        let page = try String(contentsOf: root.appendingPathComponent("Chapters/MEASUREMENTS.md"), encoding: .utf8)
        let largestBound = try #require(
            Self.kilobytes(after: "no picture is larger than", in: page),
            "MEASUREMENTS.md no longer says \"no picture is larger than N KB\": update this test with it")
        let totalBound = try #require(
            Self.kilobytes(after: "all of them together are under", in: page),
            "MEASUREMENTS.md no longer says \"all of them together are under N KB\": update this test with it")

        let sizes = try Self.pictureSizes(under: root.appendingPathComponent("Chapters"))
        #expect(sizes.count > 10, "found only \(sizes.count) pictures")
        let largest = try #require(sizes.max { $0.bytes < $1.bytes })
        let total = sizes.reduce(0) { $0 + $1.bytes }
        #expect(
            largest.bytes <= largestBound,
            "\(largest.path) has \(largest.bytes) bytes: update MEASUREMENTS.md's \"no picture is larger than\"")
        #expect(
            total <= totalBound,
            "the \(sizes.count) pictures have \(total) bytes: update MEASUREMENTS.md's \"all of them together are under\""
        )
    }

    /// The number of kilobytes (1,000 bytes) in "`phrase` N KB", in bytes.
    static func kilobytes(after phrase: String, in text: String) -> Int? {
        let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard let found = flat.range(of: phrase + " ") else { return nil }
        let words = flat[found.upperBound...].split(separator: " ", maxSplits: 2)
        guard words.count >= 2, words[1].hasPrefix("KB"), let number = Int(words[0].filter(\.isNumber)) else {
            return nil
        }
        return number * 1_000
    }

    /// Every `Chapters/*/timelines/*.svg` and its size.
    static func pictureSizes(under chapters: URL) throws -> [(path: String, bytes: Int)] {
        let files = FileManager.default
        return try files.contentsOfDirectory(atPath: chapters.path).sorted().flatMap { chapter in
            let folder = chapters.appendingPathComponent(chapter).appendingPathComponent("timelines")
            let names = (try? files.contentsOfDirectory(atPath: folder.path)) ?? []
            return try names.filter { $0.hasSuffix(".svg") }.sorted().map { name in
                let path = folder.appendingPathComponent(name).path
                let bytes = try files.attributesOfItem(atPath: path)[.size] as? Int ?? 0
                return ("Chapters/\(chapter)/timelines/\(name)", bytes)
            }
        }
    }
}
